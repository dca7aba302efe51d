import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { exchange, open, parseAnswer, readUntilClosed, type RawAnswer } from './raw-http.ts';

/**
 * Answers Node's HTTP parser gives before Fastify sees a request are problem
 * documents from the catalogue, with `code` and `request_id`, like every other answer. Real
 * sockets (light-my-request never reaches the parser). Engine-independent: one engine.
 */
const engine = ENGINES[0]!;

function expectProblem(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['cache-control']).toBe('no-store');
  const problem = JSON.parse(answer.body);
  expect(problem).toEqual({
    type: `http://api.test/docs/errors#${code}`,
    title: expect.any(String),
    status,
    code,
    detail: expect.any(String),
    request_id: expect.stringMatching(/^req_[A-Za-z0-9]{22}$/),
  });
  expect(answer.headers['request-id']).toBe(problem.request_id);
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(answer.closed).toBe(true);
}

/** An answer that sends its head and half its body, the rest only when the test ends it. */
const halfSent = new PassThrough();

describe(`answers from below the API on ${engine}`, () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await makeTestApp(engine, {
      routes: (app) =>
        app.get('/_half', { config: { access: { kind: 'public' } }, schema: { hide: true } }, async (_req, reply) =>
          reply.header('content-length', '20').type('text/plain').send(halfSent),
        ),
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t?.close());

  it('headers over 16 KiB are a 431 headers_too_large problem', async () => {
    const answer = await exchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`);
    expectProblem(answer, 431, 'headers_too_large');
  });

  it('malformed HTTP is a 400 invalid_request problem', async () => {
    expectProblem(await exchange(port, 'THIS IS NOT HTTP\r\n\r\n'), 400, 'invalid_request');
    expectProblem(
      await exchange(
        port,
        'POST /customers HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
      ),
      400,
      'invalid_request',
    );
  });

  it('malformed HTTP behind an answer already under way closes the connection without a word more', async () => {
    const socket = await open(port);
    const reading = readUntilClosed(socket, 5_000);
    halfSent.write('0123456789');
    socket.write('GET /_half HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.write('THIS IS NOT HTTP\r\n\r\n');
    const { text, closed } = await reading;
    halfSent.end('0123456789');
    expect(closed).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.endsWith('\r\n\r\n0123456789')).toBe(true);
  });

  it('the error documents name the new codes', async () => {
    const docs = await t.call(null, { method: 'GET', url: '/docs/errors' });
    for (const code of ['request_timeout', 'headers_too_large', 'service_unavailable']) {
      expect(docs.body).toContain(`id="${code}"`);
    }
  });
});

describe(`a request that reaches a closing server on ${engine}`, () => {
  it('is a 503 service_unavailable problem, while the request in flight is finished', async () => {
    const t = await makeTestApp(engine);
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.server.address() as AddressInfo).port;
      const socket = await open(port);
      const reading = readUntilClosed(socket, 10_000);
      // A request in flight (its body not all sent) keeps the connection busy through the close:
      // the close comes once the server has read its head, however long that took.
      const received = new Promise((r) => t.app.server.once('request', r));
      socket.write('POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
      await received;
      const closing = t.app.close();
      await new Promise((r) => setTimeout(r, 100));
      // The rest of its body, and a second request behind it on the same connection.
      socket.write('}GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      const { text } = await reading;
      await closing;
      const second = text.slice(text.indexOf('HTTP/1.1', 1));
      expect(parseAnswer(text, true).status).toBe(404);
      const answer = parseAnswer(second, true);
      expect(answer.status, text).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'service_unavailable', request_id: expect.any(String) });
    } finally {
      await t.storage.drop();
    }
  });
});
