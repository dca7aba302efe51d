import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Doc = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { headers?: Record<string, object>; content?: Record<string, { schema: object }> }> }>
  >;
  components?: { schemas?: Record<string, object> };
};

/**
 * Checks answers against the OpenAPI document the app publishes, so every HTTP test also
 * proves the document tells the truth (issue 2 "Tests": bodies checked against the
 * OpenAPI response schemas).
 */
export class OpenApiChecker {
  private readonly doc: Doc;
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: { regex: RegExp; path: string }[];

  constructor(app: FastifyInstance) {
    this.doc = app.swagger() as unknown as Doc;
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ components: this.doc.components ?? {} }, 'openapi');
    this.templates = Object.keys(this.doc.paths).map((path) => ({
      path,
      regex: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** Throws when a documented answer's body does not match its schema. */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    body: string,
    headers: Record<string, unknown> = {},
  ): void {
    const path = url.split('?')[0]!;
    const template = this.templates.find((t) => t.regex.test(path));
    if (!template || status === 304 || status === 204) return;
    const op = this.doc.paths[template.path]?.[method.toLowerCase()];
    if (!op) return;
    const responses = op.responses ?? {};
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!response) throw new Error(`${method} ${template.path}: status ${status} is not documented`);
    // The headers the document promises on every such answer must be there; the ones it
    // marks as conditional ("On a 429: …", Idempotent-Replayed) may not be.
    const always = status < 300 ? Object.keys(response.headers ?? {}).filter((h) => h !== 'Idempotent-Replayed' && h !== 'Original-Request') : ['Request-Id', 'Service-Version', 'Cache-Control'];
    for (const name of always) {
      if (headers[name.toLowerCase()] === undefined) throw new Error(`${method} ${template.path} ${status}: documented header ${name} is missing`);
    }
    const content = response.content ?? {};
    const media = Object.keys(content)[0];
    if (!media) return;
    const key = `${method} ${template.path} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      const schema = JSON.parse(
        JSON.stringify(content[media]!.schema).replace(/"#\/components\//g, '"openapi#/components/'),
      );
      validate = this.ajv.compile(schema);
      this.cache.set(key, validate);
    }
    const expectJson = status >= 400 ? 'application/problem+json' : 'application/json';
    if (!contentType?.startsWith(expectJson)) {
      throw new Error(`${key}: content type ${contentType}, expected ${expectJson}`);
    }
    if (!validate(JSON.parse(body))) {
      throw new Error(`${key}: body does not match the OpenAPI schema: ${this.ajv.errorsText(validate.errors)}\n${body.slice(0, 2000)}`);
    }
  }
}
