import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, HTTPMethods } from 'fastify';

type Response = { headers?: Record<string, object>; content?: Record<string, { schema: object }> };
/** An answer the operation describes, or (an error answer many share) a reference to one. */
type ResponseOrRef = Response & { $ref?: string };
type Doc = {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseOrRef> }>>;
  components?: { schemas?: Record<string, object>; responses?: Record<string, Response> };
};

/**
 * The routes the app serves but deliberately leaves out of the OpenAPI document: they are
 * for operators and browsers, not for API clients. The one list of them; anything else a
 * test calls must be in the document (or be a fixture the test registered itself).
 */
export const HIDDEN_ROUTES: readonly { method: string; path: string | RegExp; why: string }[] = [
  { method: 'GET', path: '/health', why: 'liveness probe' },
  { method: 'GET', path: '/ready', why: 'readiness probe' },
  { method: 'GET', path: '/metrics', why: 'Prometheus metrics' },
  { method: 'GET', path: '/openapi.json', why: 'the document itself' },
  { method: 'GET', path: '/docs', why: 'the API reference page (HTML), which renders this document' },
  {
    method: 'GET',
    path: /^\/docs(\/[^/]+)+$/,
    why: 'HTML pages such as /docs/errors, which problem types link to, and the assets of the reference',
  },
];

/** A route a test registered for itself (makeTestApp's `routes`), outside the document. */
export interface FixtureRoute {
  method: string;
  /** Fastify's pattern, e.g. `/_limits/write` or `/_x/:id`. */
  url: string;
}

/** Headers every answer carries (DECISIONS "HTTP and errors"). */
const EVERY_ANSWER = ['Request-Id', 'Service-Version', 'Cache-Control'];

const templateRegex = (pattern: string, param: RegExp) => new RegExp(`^${pattern.replace(param, '[^/]+')}$`);

/**
 * Checks answers against the OpenAPI document the app publishes, so every HTTP test also
 * proves the document tells the truth: bodies match the response schemas, and an error's
 * `code` is one the operation lists under that status. An answer the document does not
 * describe fails, unless it is from a HIDDEN_ROUTES entry, from a fixture the test
 * declared, or the API's own refusal of a path or method it does not have (a 404
 * `not_found` or 405 `method_not_allowed` problem document).
 */
export class OpenApiChecker {
  private readonly doc: Doc;
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: { regex: RegExp; path: string }[];
  private readonly fixtures: { method: string; regex: RegExp }[];
  private readonly problem: ValidateFunction;

  constructor(
    private readonly app: FastifyInstance,
    fixtures: readonly FixtureRoute[] = [],
  ) {
    this.doc = app.swagger() as unknown as Doc;
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ components: this.doc.components ?? {} }, 'openapi');
    this.templates = Object.keys(this.doc.paths).map((path) => ({ path, regex: templateRegex(path, /\{[^}]+\}/g) }));
    this.fixtures = fixtures.map((f) => ({ method: f.method.toUpperCase(), regex: templateRegex(f.url, /:[^/]+/g) }));
    if (!this.doc.components?.schemas?.Problem) throw new Error('the OpenAPI document has no Problem schema');
    this.problem = this.ajv.compile({ $ref: 'openapi#/components/schemas/Problem' });
  }

  /**
   * Throws when the answer is not one the document describes, or its body or headers do
   * not match what the document says.
   */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    body: string,
    headers: Record<string, unknown> = {},
  ): void {
    method = method.toUpperCase();
    const path = url.split('?')[0]!;
    const template = this.templates.find((t) => t.regex.test(path));
    const op = template ? this.doc.paths[template.path]?.[method.toLowerCase()] : undefined;
    if (template && op) {
      this.checkDocumented(method, template.path, op.responses ?? {}, status, contentType, body, headers);
      return;
    }

    const what = `${method} ${path} ${status}`;
    if (this.isHidden(method, path)) {
      // Not in the document, but a refusal is still a problem document.
      if (status >= 400) this.checkProblem(what, status, contentType, body, headers);
      return;
    }
    if (this.fixtures.some((f) => f.method === method && f.regex.test(path))) {
      // The fixture's own answer is the test's business; the API's refusals of it are not.
      if (status >= 400) this.checkProblem(what, status, contentType, body, headers);
      return;
    }
    const others = this.methodsServing(path).filter((m) => m !== method);
    if (status === 404 && !this.app.findRoute({ method: method as HTTPMethods, url: path }) && others.length === 0) {
      this.checkProblem(what, status, contentType, body, headers, 'not_found');
      return;
    }
    if (status === 405 && !this.app.findRoute({ method: method as HTTPMethods, url: path }) && others.length > 0) {
      this.checkProblem(what, status, contentType, body, headers, 'method_not_allowed');
      const allow = String(headers.allow ?? '');
      if (!allow || allow.split(/, */).includes(method))
        throw new Error(`${what}: Allow is "${allow}", which should list the path's other methods`);
      return;
    }
    throw new Error(
      `${what}: the OpenAPI document does not describe ${template ? `${method} ${template.path}` : `the path ${path}`}; ` +
        'document it, list it in HIDDEN_ROUTES (test/helpers/openapi-check.ts) if it is operational, ' +
        "or register it through makeTestApp's `routes` if it is a test fixture",
    );
  }

  private checkDocumented(
    method: string,
    templatePath: string,
    responses: NonNullable<Doc['paths'][string][string]['responses']>,
    status: number,
    contentType: string | undefined,
    body: string,
    headers: Record<string, unknown>,
  ): void {
    if (status === 304 || status === 204) return;
    const found = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!found) throw new Error(`${method} ${templatePath}: status ${status} is not documented`);
    const response = found.$ref
      ? this.doc.components?.responses?.[found.$ref.replace('#/components/responses/', '')]
      : found;
    if (!response) throw new Error(`${method} ${templatePath} ${status}: ${found.$ref} leads nowhere`);
    // The headers the document promises on every such answer must be there; the ones it
    // marks as conditional ("On a 429: …", Idempotent-Replayed) may not be.
    const always =
      status < 300
        ? Object.keys(response.headers ?? {}).filter((h) => h !== 'Idempotent-Replayed' && h !== 'Original-Request')
        : EVERY_ANSWER;
    for (const name of always) {
      if (headers[name.toLowerCase()] === undefined)
        throw new Error(`${method} ${templatePath} ${status}: documented header ${name} is missing`);
    }
    const content = response.content ?? {};
    const media = Object.keys(content)[0];
    if (!media) return;
    const key = `${method} ${templatePath} ${status}`;
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
      throw new Error(
        `${key}: body does not match the OpenAPI schema: ${this.ajv.errorsText(validate.errors)}\n${body.slice(0, 2000)}`,
      );
    }
  }

  /** A refusal outside the document: a problem document with the headers every answer has. */
  private checkProblem(
    what: string,
    status: number,
    contentType: string | undefined,
    body: string,
    headers: Record<string, unknown>,
    code?: string,
  ): void {
    for (const name of EVERY_ANSWER) {
      if (headers[name.toLowerCase()] === undefined) throw new Error(`${what}: header ${name} is missing`);
    }
    if (!contentType?.startsWith('application/problem+json'))
      throw new Error(`${what}: content type ${contentType}, expected application/problem+json`);
    let problem: { code?: unknown; status?: unknown };
    try {
      problem = JSON.parse(body);
    } catch {
      throw new Error(`${what}: the body is not JSON: ${body.slice(0, 200)}`);
    }
    if (!this.problem(problem))
      throw new Error(
        `${what}: body does not match the OpenAPI Problem schema: ${this.ajv.errorsText(this.problem.errors)}\n${body.slice(0, 2000)}`,
      );
    if (problem.status !== status) throw new Error(`${what}: the problem's status is ${String(problem.status)}`);
    if (code !== undefined && problem.code !== code)
      throw new Error(`${what}: code ${String(problem.code)}, expected ${code}`);
  }

  private isHidden(method: string, path: string): boolean {
    return HIDDEN_ROUTES.some(
      (r) => r.method === method && (typeof r.path === 'string' ? r.path === path : r.path.test(path)),
    );
  }

  /** The methods some route of the app answers on this concrete path. */
  private methodsServing(path: string): string[] {
    return this.app.supportedMethods.filter(
      (m) => this.app.findRoute({ method: m as HTTPMethods, url: path }) !== null,
    );
  }
}
