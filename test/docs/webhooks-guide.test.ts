import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, type WebhookEventType } from 'venue-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * docs/webhooks.md is the /docs guide "Webhooks": the served document carries it whole, it
 * names every event type the client's types know, and its shell recipe for trying a receiver
 * signs as both verifiers expect. The guide does not depend on the engine, so one is enough.
 */
const guide = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

// Checked by the compiler against the client's union: a type added there must be added here.
const EVENT_TYPES = Object.keys({
  'customer.created': 1,
  'customer.updated': 1,
  'customer.deleted': 1,
  'booking.created': 1,
  'booking.updated': 1,
  'order.created': 1,
  'order.updated': 1,
  'ticket.created': 1,
  'ticket.updated': 1,
  'gift_card.created': 1,
  'gift_card.updated': 1,
  'venue.created': 1,
  'venue.updated': 1,
  'activity.created': 1,
  'activity.updated': 1,
  'package.created': 1,
  'package.updated': 1,
  'event.created': 1,
  'event.updated': 1,
  'list.created': 1,
  'list.updated': 1,
  'tag.created': 1,
  'tag.updated': 1,
  'webhook.test': 1,
} satisfies Record<WebhookEventType, 1>);

/** The sh blocks of a markdown text, in order. */
const shellBlocks = (markdown: string) => [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the Webhooks guide', () => {
  let t: TestApp;
  let description: string;

  beforeAll(async () => {
    t = await makeTestApp(ENGINES[0]!);
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    description = (JSON.parse(res.body) as { info: { description: string } }).info.description;
  });
  afterAll(async () => t?.close());

  it('is served by /docs among the guides: docs/webhooks.md whole, its headings one level down', async () => {
    const start = description.indexOf('\n## Webhooks\n');
    expect(start).toBeGreaterThan(0);
    // The guide that follows it (Catching up after downtime) is not part of the document.
    const end = description.indexOf('\n## ', start + 1);
    const served = description.slice(start + 1, end < 0 ? undefined : end + 1);
    const shifted = guide.replace(/^(#{1,5}) /gm, '#$1 ');
    // No line of the document's code blocks begins with '#', so shifting every heading is enough here.
    expect(served.trimEnd()).toBe(shifted.trimEnd());
    for (const heading of ['Endpoints', 'Event types', 'The payload', 'Headers', 'Verifying a delivery'])
      expect(served).toContain(`\n### ${heading}\n`);
    expect((await t.app.inject({ method: 'GET', url: '/docs' })).statusCode).toBe(200);
  });

  it('names every event type, header and setting a receiver meets', () => {
    for (const type of EVENT_TYPES) expect(guide).toContain(`\`${type}\``);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'previous_attributes'])
      expect(guide).toContain(`\`${name}\``);
    for (const setting of ['WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_ALLOW_HTTP', 'WEBHOOK_ALLOW_PRIVATE'])
      expect(guide).toMatch(new RegExp(`\`${setting}[=\`]`));
    expect(guide).toContain('`5,300,1800,7200,18000,36000,36000`');
    expect(guide).toContain('venue-api webhooks create --workspace');
  });

  it('signs in its shell recipe as the standardwebhooks package and verifyWebhook verify', async () => {
    const [, recipe, send] = shellBlocks(guide);
    expect(send).toMatch(/^curl -s -X POST http:\/\/localhost:3000\/venue\/webhooks/);
    // The recipe's variables, one a line, as the curl after it would send them.
    const script = `${recipe}\nprintf '%s\\n%s\\n%s\\n%s\\n%s' "$SECRET" "$ID" "$TS" "$SIG" "$BODY"`;
    const out = execFileSync('sh', ['-c', script], { encoding: 'utf8' });
    const [secret, id, timestamp, signature, body] = out.split('\n') as [string, string, string, string, string];
    const headers = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: 'customer.deleted' });
    expect(await verifyWebhook(body, headers, secret)).toMatchObject({ type: 'customer.deleted' });
  });
});
