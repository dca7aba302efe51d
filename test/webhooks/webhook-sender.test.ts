import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/jobs/webhook-sender.ts';
import { MAX_PAYLOAD_BYTES as MAX_BODY_BYTES } from '../../src/resources/webhook-events/event.repo.ts';

/** One attempt's limits (DECISIONS "Webhooks", src/jobs/webhook-sender.ts), against a local receiver. */
describe('a webhook attempt', () => {
  let server: Server;
  let base: string;
  let requests = 0;
  let connections = 0;
  const open = new Set<import('node:net').Socket>();

  beforeAll(async () => {
    const served = new WeakMap<object, number>();
    server = createServer((req, res) => {
      requests++;
      req.resume();
      served.set(req.socket, (served.get(req.socket) ?? 0) + 1);
      if (req.url === '/drop-reused' && served.get(req.socket)! > 1) {
        // A receiver that closed the kept-alive connection just as it was reused.
        req.socket.destroy();
        return;
      }
      if (req.url === '/silent') return; // never answers
      if (req.url === '/endless') {
        // A 200 whose body never ends: the attempt stops reading at 4 KiB and is done.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const tick = setInterval(() => res.write('x'.repeat(1024)), 5);
        res.on('close', () => clearInterval(tick));
        return;
      }
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/elsewhere' }).end();
        return;
      }
      res.writeHead(204).end();
    });
    server.on('connection', (s) => {
      connections++;
      open.add(s);
      s.on('close', () => open.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await new Promise((r) => server.close(r));
  });

  const send = (path: string, body = '{}', timeoutMs?: number) =>
    postWebhook(
      `${base}${path}`,
      body,
      { 'content-type': 'application/json' },
      {
        allowPrivate: true,
        ...(timeoutMs ? { timeoutMs } : {}),
      },
    );

  it('any 2xx is delivered', async () => {
    expect(await send('/ok')).toEqual({ ok: true, status: 204, error: null });
  });

  it('a receiver that does not answer in time fails the attempt with no status', async () => {
    const result = await send('/silent', '{}', 300);
    expect(result).toEqual({ ok: false, status: null, error: 'no answer within 0.3 s' });
  });

  it('an answer is read to 4 KiB at most, so an endless body still ends the attempt', async () => {
    expect(await send('/endless', '{}', 5_000)).toEqual({ ok: true, status: 200, error: null });
  });

  it('a body over 256 KiB is never sent', async () => {
    const before = requests;
    const result = await send('/ok', JSON.stringify({ big: 'x'.repeat(MAX_BODY_BYTES) }));
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/over 256 KiB/);
    expect(requests).toBe(before);
    // Exactly at the limit still goes.
    expect((await send('/ok', 'x'.repeat(MAX_BODY_BYTES))).ok).toBe(true);
  });

  it('attempts one after another reuse one kept-alive connection', async () => {
    await send('/ok');
    const before = connections;
    for (let i = 0; i < 5; i++) expect((await send('/ok')).ok).toBe(true);
    expect(connections).toBe(before);
  });

  it('a kept-alive connection the receiver closed as it was reused is tried once more on a new one', async () => {
    for (const s of open) s.destroy();
    await new Promise((r) => setTimeout(r, 20));
    expect((await send('/drop-reused')).ok).toBe(true);
    const before = connections;
    expect(await send('/drop-reused')).toEqual({ ok: true, status: 204, error: null });
    expect(connections).toBe(before + 1);
  });

  it('a redirect is a failed attempt, not followed', async () => {
    const before = requests;
    expect(await send('/moved')).toEqual({ ok: false, status: 302, error: 'redirect (302) not followed' });
    expect(requests).toBe(before + 1);
  });
});
