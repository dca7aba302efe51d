import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

/** A span as OTLP/JSON carries it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

/** An OTLP/HTTP receiver (JSON, as the exporter sends by default): keeps every span it is sent. */
async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const doc = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const r of doc.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise((r) => server.close(() => r())) };
}

const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue;

async function until<T>(what: string, find: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * docs/operations.md "Tracing": with OTEL_EXPORTER_OTLP_ENDPOINT set, a POST /customers on
 * PostgreSQL is one trace: the request's span, its statements, and the webhook attempt the
 * change made, whose receiver gets the trace's traceparent.
 */
describe('tracing on PostgreSQL', { timeout: 90_000 }, () => {
  let storage: TestStorage;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let receiver: Receiver;
  let server: ServerProcess;
  let secret: string;

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    collector = await startCollector();
    receiver = await startReceiver();
    const ws = await createWorkspace(storage, systemClock, { name: 'Traced' });
    secret = (
      await createKey(storage, systemClock, { workspaceId: ws.id, name: 'k', mode: 'live', access: 'read_write' })
    ).secret;
    const made = await createEndpoint(
      storage,
      systemClock,
      { allowHttp: true, allowPrivate: true },
      { workspaceId: ws.id, url: receiver.url(), mode: 'live', contactsMasked: false, createdBy: 'test' },
    );
    receiver.secret = made.secret;
    server = await startServer({
      DATABASE_URL: storage.url,
      DEMO: 'off',
      WEBHOOK_ALLOW_HTTP: 'on',
      WEBHOOK_ALLOW_PRIVATE: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'venue-api-test',
      // The batch processor's wait before it exports (ms): short, so the test does not wait 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    await collector?.close();
    await storage?.drop();
  });

  it('shows the request, its statements and the webhook attempt in one trace, and the receiver gets its traceparent', async () => {
    const email = `traced-${randomUUID()}@example.com`;
    const res = await fetch(`${server.url}/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({ first_name: 'Traced', email }),
    });
    expect(res.status).toBe(201);
    const requestId = res.headers.get('request-id');

    const request = await until('the request span', () => collector.spans.find((s) => s.name === 'POST /customers'));
    expect(attribute(request, 'http.route')).toBe('/customers');
    const attempt = await until('the webhook attempt span', () =>
      collector.spans.find((s) => s.name === 'webhook attempt' && s.traceId === request.traceId),
    );
    expect(attempt.parentSpanId).toBe(request.spanId);
    const statements = collector.spans.filter(
      (s) => s.traceId === request.traceId && attribute(s, 'db.system.name') === 'postgresql',
    );
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((s) => s.parentSpanId === request.spanId)).toBe(true);
    expect(statements.some((s) => /insert into "customers"/i.test(attribute(s, 'db.query.text') ?? ''))).toBe(true);
    // Statement text with its placeholders: never a value it was given.
    expect(JSON.stringify(statements)).not.toContain(email);

    const delivered = await until('the delivery', () => receiver.received[0]);
    expect(delivered.verified).toBe(true);
    expect(delivered.headers.traceparent).toBe(`00-${request.traceId}-${attempt.spanId}-01`);

    // The request's log line names its trace and span.
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes(`"reqId":"${requestId}"`) && l.includes('"msg":"request"'));
    expect(line, server.output()).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ trace_id: request.traceId, span_id: request.spanId });
  });
});
