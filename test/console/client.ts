import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A browser's part in an `app.inject` test of the console: it keeps the cookies the server
 * sets, reads the CSRF token from the last page, and posts forms as a browser would.
 */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly app: FastifyInstance,
    private readonly ip = '203.0.113.7',
  ) {}

  private remember(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const cleared = c.value === '' || (c.expires !== undefined && c.expires.getTime() < Date.now());
      if (cleared) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    return res;
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({ method: 'GET', url, remoteAddress: this.ip, headers: { cookie: this.cookieHeader() } }),
    );
  }

  /** Posts a form; `_csrf` is the page's token unless the test gives one (or `null` for none). */
  async post(url: string, fields: Record<string, string | string[]>, csrf: string | null = this.csrf) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
    if (csrf !== null) body.set('_csrf', csrf);
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.ip,
        headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    );
  }

  async signIn(email: string, password: string): Promise<LightMyRequestResponse> {
    await this.get('/console/sign-in');
    return this.post('/console/sign-in', { email, password });
  }
}

/** The text of a page, without tags, for assertions on what a person reads. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}
