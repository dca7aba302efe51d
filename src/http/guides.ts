import { ERROR_CATALOGUE, ERROR_CODES } from '../errors.ts';
import { BURST_FACTOR, BURST_FLOOR, CUSTOMER_RULE_MIN_WORKSPACE, HISTORY_MS } from '../jobs/activity-rules.ts';
import { DAY_MS } from '../lib/time.ts';
import { REFUSED_KEYS_PER_MINUTE } from '../limits/limits.ts';
import {
  DEFAULT_KEY_LIMITS,
  DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE,
  MAX_KEYS_PER_WORKSPACE,
} from '../resources/keys/key.model.ts';
import { CURRENT_VERSION } from './request-context.ts';
import { webhooksGuide } from './webhooks-guide.ts';

/**
 * The guides an integrator reads before the reference: the OpenAPI document's
 * `info.description`, markdown, so the /docs page, a code generator and an agent reading
 * /openapi.json all get them. Figures (limits, error codes, the version) come from the
 * modules that enforce them, so the guides cannot drift from the behaviour.
 */
const n = (value: number) => value.toLocaleString('en-US');

/**
 * How a project installs venue-api-client while it is not on npm: the tarball `npm pack`
 * writes in clients/typescript (test/client/package.test.ts packs it and installs it so).
 */
export const CLIENT_INSTALL = 'npm install /path/to/venue-api/clients/typescript/venue-api-client-0.1.0.tgz';

/** The headings, in order: the /docs test checks each one is shown. */
export const GUIDE_TITLES = [
  'Authentication',
  'Versioning',
  'Pagination',
  'Idempotency',
  'Concurrency',
  'Errors',
  'Limits',
  'Webhooks',
  'Catching up after downtime',
  'Generating a client in another language',
] as const;

export function guides(baseUrl: string): string {
  const base = baseUrl || 'http://127.0.0.1:8080';
  const auth = `-H "Authorization: Bearer $VENUE_KEY" -H "Service-Version: ${CURRENT_VERSION}"`;
  const l = DEFAULT_KEY_LIMITS;
  const errorRows = ERROR_CODES.map((code) => {
    const e = ERROR_CATALOGUE[code];
    return `| ${e.status} | \`${code}\` | ${e.title}. | ${e.hint.replace(/\|/g, '\\|')} |`;
  }).join('\n');

  return `A venue business workspace's data (venues, customers, bookings, orders, events, tickets, gift cards, …) for programs and software agents.

Every answer carries \`Request-Id\`, \`Service-Version\` and \`Cache-Control: no-store\`; every answer to a valid key carries \`RateLimit-Policy\` and \`RateLimit\`; a 429 carries \`Retry-After\`. Errors are RFC 9457 problem documents. A typed TypeScript client, \`venue-api-client\`, wraps all of this (paging, retries, idempotency keys, \`If-Match\`). Until it is published, install it from a tarball of this service's repository: in a clone, after \`npm ci\`,

\`\`\`sh
cd clients/typescript && npm run build && npm pack
cd /path/to/your-project && ${CLIENT_INSTALL}
\`\`\`

## Authentication

Send your key as a bearer token on every request:

\`\`\`sh
curl -s ${base}/key ${auth}
\`\`\`

- **Test and live.** A key is \`vw_test_…\` or \`vw_live_…\`. A test key sees and writes only test customers, bookings and orders (\`livemode: false\`); venues, activities, packages, events, lists and tags are shared; tickets and gift cards are real records only, so a test key sees none. \`DELETE /test-data\` (test keys only) removes what test keys wrote.
- **Read and write.** A \`read\` key gets 403 \`forbidden\` on every write; a \`read_write\` key may make the writes in its \`can_write\`.
- **Restricted.** A \`restricted\` key reads only the collections in its \`can_read\` and writes only the entries in its \`can_write\` (\`customers.create\`, \`customers.update\`, \`customers.delete\`, \`customers.tags\`, \`customers.lists\`, \`test_data.delete\`); anything else is 403 \`forbidden\`.
- **Masked.** A key with \`contacts_masked: true\` never sees an email or phone in full: \`j***@example.com\`, \`+*********78\`. An exact \`GET /customers?email=\` look-up still works.
- \`GET /key\` answers what the calling key may do, its expiry and its limits. A missing, wrong, expired or revoked key is 401 \`unauthorized\`; a paused key is 403 \`key_paused\` until a person resumes it.

## Versioning

Send \`Service-Version\` with a date; the current version is \`${CURRENT_VERSION}\`. Without the header you get the current version, so pin it: behaviour you built against then never changes under you. An unknown version is 400 \`unsupported_version\`, whose \`detail\` lists the accepted ones. Every answer's \`Service-Version\` header says which version served it.

\`\`\`sh
curl -si ${base}/venues ${auth} | grep -i '^service-version'
\`\`\`

## Pagination

Lists answer \`{ "object": "list", "data": [...], "has_more": true, "next_cursor": "…" }\`, newest first. \`limit\` is 1 to 100 (default 25). To walk a collection, pass the previous page's \`next_cursor\` as \`starting_after\` until \`has_more\` is false. Cursors are keyset positions, not offsets: rows created while you page never make you see a row twice or skip one. A cursor is bound to its collection and filters; elsewhere it is 400.

\`\`\`sh
curl -s "${base}/customers?limit=100" ${auth}
curl -s "${base}/customers?limit=100&starting_after=$NEXT_CURSOR" ${auth}
\`\`\`

**Syncing.** Keep the time you started a full walk; next time, pass it as \`updated_since\` (ISO 8601 with an offset) to get only the rows changed at or after it, then page as above.

\`\`\`sh
curl -s "${base}/customers?updated_since=2026-10-08T00:00:00Z" ${auth}
\`\`\`

**Deletions.** A customer deleted since your last sync simply stops appearing. Add \`include_deleted=true\` (only together with \`updated_since\`, else 400) and the page also holds the customers deleted at or after that instant, each as \`{"id": "cus_…", "object": "customer", "deleted": true, "deleted_at": "…"}\` in the place the customer held in the list (newest first by its \`created_at\`, then id), so one cursor walks customers and deletions alike: remove your copy of each one marked \`deleted\`. Deletions are kept 365 days, as the change log is: sync at least that often, or walk the whole collection again. A test key sees only test deletions, a live key only live ones; a deleted customer made again with the same email is a new id.

\`\`\`sh
curl -s "${base}/customers?updated_since=2026-10-08T00:00:00Z&include_deleted=true" ${auth}
\`\`\`

## Idempotency

Every POST needs an \`Idempotency-Key\` header (up to 255 characters; a UUID is ideal); without it the answer is 428 \`precondition_required\`. Retry a POST that failed on the network with the same key: if the first one was written, you get its stored answer (status and body byte for byte) with \`Idempotent-Replayed: true\`, and nothing is written twice. Keys are kept 24 hours, per API key.

\`\`\`sh
curl -s -X POST ${base}/customers ${auth} \\
  -H "Idempotency-Key: 0b7f6c1e-2a51-4c47-9a36-6f3f4e1c9d10" -H "Content-Type: application/json" \\
  -d '{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}'
\`\`\`

- The same key with another method, path or body is 422 \`idempotency_mismatch\`: use a new key for a new request.
- The same key while its first request is still running is 409 \`conflict\`: wait a moment and retry with the same key.
- Refusals before the request ran (401, 403 from the key, 428, 429, 400 from validation) are not stored, so you can fix and retry with the same key.

## Concurrency

Every customer carries \`version\`, and every answer about one record carries \`ETag: "<version>"\`. Send it back as \`If-Match\` on a PATCH: if the customer changed since you read it, the answer is 412 \`precondition_failed\` and nothing is written. Read it again, check your change still makes sense, and retry with the new version. \`If-None-Match\` on a GET of one record answers 304 while your copy is current.

\`\`\`sh
curl -s -X PATCH ${base}/customers/$CUSTOMER_ID ${auth} \\
  -H 'If-Match: "3"' -H "Content-Type: application/json" -d '{"nickname":"Ada"}'
\`\`\`

## Errors

Errors are \`application/problem+json\` with \`type\`, \`title\`, \`status\`, \`code\`, \`detail\` and \`request_id\`; a 400 adds \`errors\` (\`field\` and \`message\` each), a 429 adds \`limit\`. Branch on \`code\`, never on \`detail\`; quote \`request_id\` when you report a failure. Each \`type\` links to a page that explains its code.

\`\`\`sh
curl -s "${base}/customers?limit=500" ${auth}
# {"type":"…#invalid_request","title":"The request is not valid","status":400,"code":"invalid_request",…}
\`\`\`

| Status | \`code\` | Meaning | What to do |
|---|---|---|---|
${errorRows}

## Limits

| What | Default | Counted |
|---|---|---|
| Requests | ${n(l.requests_per_minute)} a minute, ${n(l.requests_per_day)} a day | per key |
| Requests | ${n(DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE)} a minute | per workspace, across its keys |
| Writes (POST, PATCH) | ${n(l.writes_per_minute)} a minute, ${n(l.writes_per_day)} a day | per key |
| Removals (every DELETE) | ${n(l.removals_per_day)} a day | per key |
| Refused keys (401 answers) | ${n(REFUSED_KEYS_PER_MINUTE)} a minute | per address (IPv6 per /64) |
| Page size | 1 to ${l.page_size_max}, default ${l.page_size_default} | per request |
| Request body | 64 KiB | per request |
| Idempotency-Key | 255 characters | per request |
| Keys | ${MAX_KEYS_PER_WORKSPACE} not revoked | per workspace |

Minutes are fixed 60-second windows; days reset at 00:00 UTC. \`GET /key\` shows the figures in force for your key. Every answer to a request with a valid key, refusals included, carries \`RateLimit-Policy: "default";q=<requests a minute>;w=60\` and \`RateLimit: "default";r=<left this minute>;t=<seconds to reset>\`. When a limit is reached the answer is 429 \`rate_limited\`, its \`limit\` names the limit (\`requests_per_minute\`, \`requests_per_day\`, \`writes_per_minute\`, \`writes_per_day\`, \`removals_per_day\`, \`workspace_requests_per_minute\`, \`refused_keys_per_minute\`) and \`Retry-After\` says how many seconds to wait; a refused request counts against nothing.

\`\`\`sh
curl -si ${base}/key ${auth} | grep -i '^ratelimit'
\`\`\`

### Unusual activity

Live keys are checked every hour, and a key is **paused** when either holds:

- **Customers:** in the trailing 24 hours it was sent more than half of the workspace's live customers (only in workspaces of ${n(CUSTOMER_RULE_MIN_WORKSPACE)} live customers or more). Every customer in an answer counts once: a list page, a retrieve, a write's answer.
- **Requests:** its requests in the last hour are more than ${BURST_FACTOR} times its hourly average over the ${HISTORY_MS / DAY_MS} days before, and more than ${n(BURST_FLOOR)}.

A key's first 24 hours are its first sync and are not held against it: walk every customer then. A paused key gets 403 \`key_paused\` on every request until a person who manages keys resumes it in the developer settings (they are emailed, with the reason); retrying does not help.

**Do not re-walk every customer to find the deleted ones.** On a live key past its first day, a full walk of the customers is more than half of them in 24 hours, and pauses the key. Sync with \`updated_since\` instead (see Pagination): keep the time each walk started and ask only for what changed since. To check one customer you hold, \`GET /customers/{id}\` answers 404 once it is deleted.

${webhooksGuide()}
${catchingUpGuide(base, auth)}

${generatingGuide(base)}`;
}

/** Last: the document itself, for integrators who generate their own client. */
function generatingGuide(base: string): string {
  return `## Generating a client in another language

\`GET /openapi.json\` is this reference as OpenAPI 3.1, and generators read it as it is. Every record, page, deleted shape, error and webhook event is a named schema (\`Customer\`, \`CustomerList\`, \`DeletedCustomer\`, \`Problem\`, \`WebhookEvent\`, \`CustomerCreatedEvent\`, …), so a generated client has one \`Customer\` type that retrieve, create, update and list all answer. Every POST requires \`Idempotency-Key\`, \`If-Match\` and \`If-None-Match\` carry their patterns, instants are \`format: date-time\`, and \`POST /customers\` links to the retrieve, update and delete of the customer it made.

\`\`\`sh
curl -s ${base}/openapi.json -o openapi.json
npx @hey-api/openapi-ts@0.94.5 -i openapi.json -o src/venue-api
\`\`\`

That TypeScript client (types in \`types.gen.ts\`, one function per operation in \`sdk.gen.ts\`) is generated and checked by this API's own tests, as is \`venue-api-client\`, which this repository generates from the same document (\`npm run client:generate\`, with openapi-typescript). Generators for other languages (OpenAPI Generator, openapi-python-client) read the same document; name the types after the schemas, and send a new \`Idempotency-Key\` for each new POST (a UUID), the same one only to retry it.`;
}

/** After the Webhooks guide: reading the events feed back, and the client's listen and trigger. */
function catchingUpGuide(base: string, auth: string): string {
  const since = '2026-10-08T00:00:00Z';
  return `## Catching up after downtime

A receiver that was down past the last retry, or lost events it had answered 2xx to, reads what it missed from the events feed. \`GET /webhook-events\` lists every change to the records your key may read, in its mode, as the same \`webhook_event\` a delivery carries, with the same \`id\`, whether or not an endpoint took it; events are kept \`EVENT_RETENTION_DAYS\` days (365 by default). Any key may read it; a masked key's events are masked, and a restricted key sees the events of the collections in its \`can_read\` only. \`GET /webhook-events/{id}\` answers one event.

1. Keep the \`created_at\` of the last event you handled.
2. Ask for the events made at or after a little before it (\`created_since\`, ISO 8601 with an offset, inclusive), only of the types you handle (\`type\`, comma-separated), and page with \`next_cursor\` as \`starting_after\` until \`has_more\` is false:

\`\`\`sh
curl -s "${base}/webhook-events?created_since=${since}&type=customer.created,customer.updated,customer.deleted&limit=100" ${auth}
curl -s "${base}/webhook-events?created_since=${since}&type=customer.created,customer.updated,customer.deleted&limit=100&starting_after=$NEXT_CURSOR" ${auth}
\`\`\`

3. Pages are newest first: handle the events oldest first, by \`created_at\`.
4. Dedupe on \`id\`, as for deliveries: the events you handled before the outage, and the retries that arrive while you catch up, carry ids you have stored; skip them.

Why a little before: an event's \`created_at\` is taken when its change begins, before it commits, so an event can reach the feed just after a later one. Starting from a minute before your last event and skipping the ids you know misses none. An unknown \`type\` (\`webhook.test\` included: test events are deliveries only) is 400 \`invalid_request\`.

With \`venue-api-client\`:

\`\`\`ts
const missed = [];
for await (const event of venue.webhookEvents.list({ created_since: since, limit: 100 })) {
  if (!(await handledBefore(event.id))) missed.push(event);
}
for (const event of missed.reverse()) await handle(event); // oldest first
\`\`\`

### Developing a receiver: listen and trigger

The client package's command line brings events to a receiver on your own machine, where the API cannot deliver (an endpoint's URL must be a public \`https://\` one). With \`VENUE_API_KEY\` and \`VENUE_API_URL\` set (or \`--key\` and \`--url\`):

\`\`\`sh
npx venue-api-client listen --forward-to http://localhost:3000/venue/webhooks --events customer.created,customer.deleted
# Ready. Signing secret: whsec_…
npx venue-api-client trigger customer.created
# whe_…
\`\`\`

\`listen\` makes a \`whsec_\` secret for the session and prints it first: give it to your receiver. It then follows the feed from that moment, about once a second, and POSTs each new event (of the \`--events\` types, or all) to the URL, once, with the headers and signature of a real delivery, printing one line per event: \`<time> <type> <id> -> <status> (<ms> ms)\`, or the connection error. It is not retried: trigger the change again. Ctrl-C stops it.

\`trigger customer.created|customer.updated|customer.deleted\` (test keys only; a live key is refused before any request) makes that change to a throwaway test customer through the API, made first for an update or a deletion, and prints the event's id, so you can check your receiver got it. \`DELETE /test-data\` removes the customers it made.`;
}
