import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { open, parseAnswer, readUntilClosed } from './raw-http.ts';

/**
 * Slow clients, over real sockets: a request not received in full within REQUEST_TIMEOUT_MS
 * is answered 408 (a problem document) and its connection closed; MAX_CONNECTIONS caps the
 * connections open at once. The HTTP layer is the same on both engines: one engine suffices.
 */
const engine = ENGINES[0]!;

async function listening(env: Record<string, string>): Promise<{ t: TestApp; port: number }> {
  const t = await makeTestApp(engine, { env });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, port: (t.app.server.address() as AddressInfo).port };
}

/** Writes one byte of `text` every `everyMs` until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  return () => clearInterval(timer);
}

function expectTimeoutProblem(text: string, closed: boolean) {
  const answer = parseAnswer(text, closed);
  expect(answer.status, text).toBe(408);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  const problem = JSON.parse(answer.body);
  expect(problem).toMatchObject({
    status: 408,
    code: 'request_timeout',
    type: expect.stringMatching(/#request_timeout$/),
  });
  expect(problem.request_id).toMatch(/^req_/);
  expect(answer.headers['request-id']).toBe(problem.request_id);
  expect(answer.closed).toBe(true);
}

describe(`slow clients on ${engine}`, () => {
  let slow: { t: TestApp; port: number };
  beforeAll(async () => {
    slow = await listening({ REQUEST_TIMEOUT_MS: '600' });
  });
  afterAll(async () => slow?.t.close());

  it('REQUEST_TIMEOUT_MS is 30 s unless set', () => {
    expect(loadConfig({}).requestTimeoutMs).toBe(30_000);
    expect(slow.t.config.requestTimeoutMs).toBe(600);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });

  it('a body sent a byte at a time, to an unknown path with no key, is answered 408 and closed', async () => {
    const sockets = await Promise.all(Array.from({ length: 5 }, () => open(slow.port)));
    const answers = sockets.map((s) => readUntilClosed(s, 10_000));
    const stops = sockets.map((s) => {
      s.write('POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
      return trickle(s, '{"a":"'.padEnd(1000, 'x'), 100);
    });
    for (const { text, closed } of await Promise.all(answers)) expectTimeoutProblem(text, closed);
    for (const stop of stops) stop();
    for (const s of sockets) s.destroy();
  });

  it('headers that never finish arriving are answered 408 and closed', async () => {
    const socket = await open(slow.port);
    const answer = readUntilClosed(socket, 10_000);
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const stop = trickle(socket, 'X-Slow: '.padEnd(500, 'y'), 100);
    const { text, closed } = await answer;
    stop();
    socket.destroy();
    expectTimeoutProblem(text, closed);
  });

  it('a request that arrives in time is answered as usual', async () => {
    const socket = await open(slow.port);
    const answer = readUntilClosed(socket, 5_000);
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const { text, closed } = await answer;
    expect(parseAnswer(text, closed).status).toBe(200);
  });
});

describe(`connection cap on ${engine}`, () => {
  let capped: { t: TestApp; port: number };
  beforeAll(async () => {
    capped = await listening({ MAX_CONNECTIONS: '3' });
  });
  afterAll(async () => capped?.t.close());

  /** A kept-alive connection that has been answered once (so the server counts it). */
  async function keptAlive(): Promise<Socket> {
    const socket = await open(capped.port);
    const answered = new Promise<string>((resolve) => socket.once('data', (c: Buffer) => resolve(c.toString())));
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await answered).toMatch(/^HTTP\/1\.1 200/);
    return socket;
  }

  it('MAX_CONNECTIONS is 1024 unless set; a connection past the cap is closed unanswered', async () => {
    expect(loadConfig({}).maxConnections).toBe(1024);
    const held = [await keptAlive(), await keptAlive(), await keptAlive()];
    const extra = await open(capped.port);
    const refused = readUntilClosed(extra, 5_000);
    extra.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await refused).toEqual({ text: '', closed: true });

    // One of the three goes: a new connection is served again.
    held[0]!.destroy();
    let served = false;
    for (let attempt = 0; attempt < 50 && !served; attempt++) {
      const socket = await open(capped.port);
      const answer = readUntilClosed(socket, 2_000);
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      served = parseAnswer((await answer).text, true).status === 200;
      socket.destroy();
      if (!served) await new Promise((r) => setTimeout(r, 50));
    }
    expect(served).toBe(true);
    for (const s of held) s.destroy();
  });
});
