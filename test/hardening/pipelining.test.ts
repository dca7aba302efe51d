import type { AddressInfo, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { MAX_UNSENT_ANSWERS } from '../../src/http/backpressure.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { AnswerStream, open } from './raw-http.ts';

/**
 * Clients that pipeline requests and read their answers late or never: a connection whose
 * answers go unread stops being read, so only a bounded number of its requests run and wait
 * in memory; one on which nothing moves for CONNECTION_IDLE_TIMEOUT_MS is closed; clients that
 * do read lose nothing. The HTTP layer is the same on both engines: one engine suffices.
 */
const engine = ENGINES[0]!;
const MIB = 1024 * 1024;

/** Answers asked with `?held` wait for this gate. */
let gate: Promise<void> = Promise.resolve();

/** Counts the requests that reached a handler; each answer is `<n>:` and fresh padding. */
function fixtures(started: { count: number }) {
  return (app: FastifyInstance) => {
    const access = { config: { access: { kind: 'public' as const } }, schema: { hide: true } };
    app.get<{ Params: { n: string }; Querystring: { size?: string; held?: string } }>(
      '/_pipelined/:n',
      access,
      async (req, reply) => {
        started.count++;
        if (req.query.held !== undefined) await gate;
        return reply.type('text/plain').send(`${req.params.n}:${'x'.repeat(Number(req.query.size ?? 10))}`);
      },
    );
    app.post<{ Body: { text: string } }>('/_pipelined/echo', access, async (req) => ({ length: req.body.text.length }));
  };
}

async function listening(env: Record<string, string>, started: { count: number }) {
  const t = await makeTestApp(engine, { env, routes: fixtures(started) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, port: (t.app.server.address() as AddressInfo).port };
}

const get = (n: number, size: number) => `GET /_pipelined/${n}?size=${size} HTTP/1.1\r\nHost: x\r\n\r\n`;
const gets = (count: number, size: number) => Array.from({ length: count }, (_, n) => get(n, size)).join('');

/** A connection that sends `text` at once and reads nothing until resumed. */
async function unread(port: number, text: string): Promise<{ socket: Socket; stream: AnswerStream }> {
  const socket = await open(port);
  const stream = new AnswerStream(socket);
  socket.pause();
  socket.write(text);
  return { socket, stream };
}

/** Waits until `count()` has not changed for a second. */
async function settled(count: () => number): Promise<number> {
  let last = -1;
  let since = Date.now();
  while (Date.now() - since < 1_000) {
    if (count() !== last) [last, since] = [count(), Date.now()];
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

function expectInOrder(stream: AnswerStream, count: number, size: number) {
  expect(stream.answers).toHaveLength(count);
  stream.answers.forEach((answer, n) => {
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(`${n}:${'x'.repeat(size)}`);
  });
}

describe(`pipelined answers on ${engine}`, () => {
  const started = { count: 0 };
  let s: { t: TestApp; port: number };
  beforeAll(async () => {
    s = await listening({}, started);
  });
  afterAll(async () => s?.t.close());

  it('CONNECTION_IDLE_TIMEOUT_MS is 60 s unless set, and is the server socket timeout', () => {
    expect(loadConfig({}).connectionIdleTimeoutMs).toBe(60_000);
    expect(loadConfig({ CONNECTION_IDLE_TIMEOUT_MS: '2500' }).connectionIdleTimeoutMs).toBe(2_500);
    expect(() => loadConfig({ CONNECTION_IDLE_TIMEOUT_MS: 'never' })).toThrow(/CONNECTION_IDLE_TIMEOUT_MS/);
    expect(() => loadConfig({ CONNECTION_IDLE_TIMEOUT_MS: '0' })).toThrow(/CONNECTION_IDLE_TIMEOUT_MS/);
    expect(s.t.app.server.timeout).toBe(60_000);
  });

  it('a client that reads gets every pipelined answer, in order, a request with a body included', async () => {
    const socket = await open(s.port);
    const stream = new AnswerStream(socket);
    const text = 'y'.repeat(60_000);
    const body = JSON.stringify({ text });
    // The body's second half comes later, while the requests before it still wait their turn.
    socket.write(
      `${gets(60, 20_000)}POST /_pipelined/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 30_000)}`,
    );
    setTimeout(() => socket.write(body.slice(30_000)), 200);
    await vi.waitFor(() => expect(stream.answers).toHaveLength(61), { timeout: 10_000 });
    const echo = stream.answers.pop()!;
    expectInOrder(stream, 60, 20_000);
    expect([echo.status, JSON.parse(echo.body)]).toEqual([200, { length: text.length }]);
    socket.destroy();
  });

  it('a connection whose answers go unread stops being read: few of its requests run, and none is lost', async () => {
    started.count = 0;
    const { socket, stream } = await unread(s.port, gets(100, MIB));
    // What the kernel buffers hold (a few MiB) and MAX_UNSENT_ANSWERS: not the 100 asked for.
    // At least that many run: wait for them first, so a stalled second is not taken for the end.
    await vi.waitFor(() => expect(started.count).toBeGreaterThanOrEqual(MAX_UNSENT_ANSWERS), { timeout: 10_000 });
    const ran = await settled(() => started.count);
    expect(ran).toBeGreaterThanOrEqual(MAX_UNSENT_ANSWERS);
    expect(ran).toBeLessThanOrEqual(40);
    expect(stream.answers.length).toBe(0);

    socket.resume();
    await vi.waitFor(() => expect(stream.answers).toHaveLength(100), { timeout: 20_000 });
    expectInOrder(stream, 100, MIB);
    expect(stream.closed).toBe(false);
    socket.destroy();
  });

  /** Counts the requests the server parses while `fn` runs. */
  async function parsing(fn: (parsed: () => number) => Promise<void>) {
    let parsed = 0;
    const count = () => parsed++;
    s.t.app.server.on('request', count);
    try {
      await fn(() => parsed);
    } finally {
      s.t.app.server.off('request', count);
    }
  }

  /** 2,000 requests of 8 KiB whose answers wait for the gate: many reads' worth of the socket. */
  const heldRequests = (from: number) =>
    Array.from(
      { length: 2_000 },
      (_, n) => `GET /_pipelined/${from + n}?held HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(8 * 1024)}\r\n\r\n`,
    ).join('');

  /** Closes the gate for the test, and opens it after. */
  async function gated(fn: (answer: () => void) => Promise<void>) {
    let answer!: () => void;
    gate = new Promise((resolve) => (answer = resolve));
    try {
      await fn(answer);
    } finally {
      answer();
      gate = Promise.resolve();
    }
  }

  it('a connection whose answers are slow to come stops being read: its requests are not all parsed meanwhile', async () => {
    await gated((answer) =>
      parsing(async (parsed) => {
        const socket = await open(s.port);
        const stream = new AnswerStream(socket);
        socket.write(heldRequests(0));
        await vi.waitFor(() => expect(parsed()).toBeGreaterThanOrEqual(2 * MAX_UNSENT_ANSWERS), { timeout: 10_000 });
        // The answers begun, the requests waiting, and what one read of the socket brought.
        const held = await settled(parsed);
        expect(held).toBeLessThanOrEqual(100);
        expect(stream.answers).toHaveLength(0);

        answer();
        await vi.waitFor(() => expect(stream.answers).toHaveLength(2_000), { timeout: 30_000 });
        expectInOrder(stream, 2_000, 10);
        socket.destroy();
      }),
    );
  });

  it('a connection Node stopped and started again, its output sent, is still not read while its requests wait', async () => {
    await gated((answer) =>
      parsing(async (parsed) => {
        const socket = await open(s.port);
        const stream = new AnswerStream(socket);
        // Large answers first, read by the client: Node stops reading until they drain, then starts again.
        socket.write(`${gets(16, MIB)}${heldRequests(16)}`);
        await vi.waitFor(() => expect(stream.answers).toHaveLength(16), { timeout: 10_000 });
        const held = await settled(parsed);
        expect(held).toBeLessThanOrEqual(100);

        answer();
        await vi.waitFor(() => expect(stream.answers).toHaveLength(2_016), { timeout: 30_000 });
        expect(stream.answers.map((a) => a.body)).toEqual(
          Array.from({ length: 2_016 }, (_, n) => `${n}:${'x'.repeat(n < 16 ? MIB : 10)}`),
        );
        socket.destroy();
      }),
    );
  });
});

describe(`idle connections on ${engine}`, () => {
  const started = { count: 0 };
  let s: { t: TestApp; port: number };
  beforeAll(async () => {
    s = await listening({ CONNECTION_IDLE_TIMEOUT_MS: '1000' }, started);
  });
  afterAll(async () => s?.t.close());

  const connections = () =>
    new Promise<number>((resolve, reject) =>
      s.t.app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
    );

  it('a connection that reads none of its answers is closed once nothing has moved for the timeout', async () => {
    started.count = 0;
    const { socket, stream } = await unread(s.port, gets(100, MIB));
    await vi.waitFor(async () => expect(await connections()).toBe(0), { timeout: 10_000, interval: 100 });
    expect(started.count).toBeLessThanOrEqual(40);
    // The client sees the close as soon as it reads: what the kernel held, then the end.
    socket.resume();
    await vi.waitFor(() => expect(stream.closed).toBe(true), { timeout: 10_000 });
    expect(stream.answers.length).toBeLessThan(100);
  });

  it('a slow reader still draining its answers is not cut off, though it takes longer than the timeout', async () => {
    const socket = await open(s.port);
    const stream = new AnswerStream(socket);
    // About 3 MiB a second: the 16 MiB asked for take several timeouts to arrive.
    socket.on('data', () => {
      socket.pause();
      setTimeout(() => socket.resume(), 20);
    });
    const began = Date.now();
    socket.write(gets(16, MIB));
    await vi.waitFor(() => expect(stream.answers).toHaveLength(16), { timeout: 30_000, interval: 100 });
    expect(Date.now() - began).toBeGreaterThan(2_000);
    expectInOrder(stream, 16, MIB);
    expect(stream.closed).toBe(false);
    socket.destroy();
  });
});
