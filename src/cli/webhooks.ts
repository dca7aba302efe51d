import { Command } from 'commander';
import { invalid } from '../errors.ts';
import { parseInstantWithOffset } from '../lib/time.ts';
import type { WebhookDelivery, WebhookEndpoint } from '../resources/webhooks/webhook.model.ts';
import {
  createEndpoint,
  deleteEndpoint,
  endpointDeliveries,
  resendDelivery,
  resendFailedSince,
  rotateSecret,
  sendTestEvent,
  setEndpointStatus,
  workspaceEndpoints,
} from '../resources/webhooks/webhook.service.ts';
import { getWorkspace } from '../resources/workspaces/workspace.service.ts';
import { BY_OPTION, commaList, operatorActor, printResult, withStorage } from './run.ts';

function oneLine(e: WebhookEndpoint): string {
  const masked = e.contacts_masked ? ' contacts-masked' : '';
  return `${e.id}  ${e.url}  ${e.mode}  ${e.events.join(',')}${masked}  ${e.status}`;
}

function deliveryLine(d: WebhookDelivery): string {
  const last = d.last_status ?? d.last_error ?? '-';
  const next = d.next_attempt_at ? `  next ${d.next_attempt_at}` : '';
  return `${d.created_at}  ${d.event}  ${d.type}  ${d.status}  attempts ${d.attempts}  last ${last}${next}`;
}

interface ResendOptions {
  since?: string;
  by?: string;
  json?: boolean;
}

function sinceInstant(raw: string): number {
  const ms = parseInstantWithOffset(raw);
  if (ms === null)
    throw invalid(`--since must be ISO 8601 with an offset, e.g. 2027-01-01T00:00:00Z (got "${raw.slice(0, 64)}")`);
  return ms;
}

const resentLine = (n: number, id: string, since: string) =>
  n === 0
    ? `No failed deliveries to ${id} since ${since}; nothing was resent.`
    : `Queued ${n} failed ${n === 1 ? 'delivery' : 'deliveries'} to ${id} since ${since} again.`;

interface CreateOptions {
  workspace: string;
  url: string;
  mode: string;
  events?: string[];
  contactsMasked?: boolean;
  by?: string;
  json?: boolean;
}

async function create(opts: CreateOptions): Promise<void> {
  if (opts.mode !== 'test' && opts.mode !== 'live') throw invalid('--mode must be test or live');
  const { endpoint, secret } = await withStorage(async ({ storage, clock, config }) => {
    await getWorkspace(storage.db, opts.workspace);
    return createEndpoint(
      storage,
      clock,
      { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate },
      {
        workspaceId: opts.workspace,
        url: opts.url,
        mode: opts.mode as 'test' | 'live',
        ...(opts.events ? { events: opts.events } : {}),
        contactsMasked: opts.contactsMasked === true,
        createdBy: 'operator CLI',
        by: operatorActor(opts.by),
      },
    );
  });
  printResult(
    opts.json,
    { ...endpoint, secret },
    () => `Created webhook endpoint ${oneLine(endpoint)}\nSigning secret (shown this once, store it now): ${secret}`,
  );
}

/** `webhooks create|list|disable|enable|delete|deliveries` (DECISIONS "Operator CLI"), plus rotate-secret, resend, send-test. */
export function webhooksCommand(): Command {
  const cmd = new Command('webhooks').description("Create and manage a workspace's webhook endpoints.");

  cmd
    .command('create')
    .description('Create a webhook endpoint; its signing secret is printed once.')
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .requiredOption('--url <url>', 'where events are posted (https)')
    .requiredOption('--mode <mode>', 'test or live: which changes it hears of')
    .option('--events <types>', 'comma-separated event types (default: all, "*")', commaList)
    .option('--contacts-masked', "never send customers' email or phone in full")
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(create);

  cmd
    .command('list')
    .description("List a workspace's webhook endpoints, newest first (no secrets).")
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .option('--json', 'print one JSON document')
    .action(async (opts: { workspace: string; json?: boolean }) => {
      const endpoints = await withStorage(async ({ storage }) => {
        await getWorkspace(storage.db, opts.workspace);
        return (await workspaceEndpoints(storage.db, opts.workspace)).map(({ endpoint }) => endpoint);
      });
      printResult(opts.json, endpoints, () =>
        endpoints.length === 0 ? `No webhook endpoints in ${opts.workspace}.` : endpoints.map(oneLine).join('\n'),
      );
    });

  for (const status of ['disable', 'enable'] as const) {
    cmd
      .command(status)
      .description(`${status === 'disable' ? 'Disable' : 'Enable'} a webhook endpoint.`)
      .argument('<endpoint>', 'the wh_ id')
      .option(...BY_OPTION)
      .option('--json', 'print one JSON document')
      .action(async (id: string, opts: { json?: boolean; by?: string }) => {
        const endpoint = await withStorage(({ storage, clock }) =>
          setEndpointStatus(
            storage,
            clock,
            null,
            id,
            status === 'disable' ? 'disabled' : 'enabled',
            operatorActor(opts.by),
          ),
        );
        printResult(opts.json, endpoint, () => `${status === 'disable' ? 'Disabled' : 'Enabled'} ${oneLine(endpoint)}`);
      });
  }

  cmd
    .command('delete')
    .description('Delete a webhook endpoint and its deliveries.')
    .argument('<endpoint>', 'the wh_ id')
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(async (id: string, opts: { json?: boolean; by?: string }) => {
      const endpoint = await withStorage(({ storage, clock }) =>
        deleteEndpoint(storage, null, id, operatorActor(opts.by), clock),
      );
      printResult(
        opts.json,
        { id: endpoint.id, object: 'webhook_endpoint', deleted: true },
        () => `Deleted ${oneLine(endpoint)}`,
      );
    });

  cmd
    .command('deliveries')
    .description("An endpoint's recent deliveries, newest first.")
    .argument('<endpoint>', 'the wh_ id')
    .option('--json', 'print one JSON document')
    .action(async (id: string, opts: { json?: boolean }) => {
      const deliveries = await withStorage(({ storage }) => endpointDeliveries(storage.db, null, id));
      printResult(opts.json, deliveries, () =>
        deliveries.length === 0 ? `No deliveries to ${id} yet.` : deliveries.map(deliveryLine).join('\n'),
      );
    });

  cmd
    .command('rotate-secret')
    .description('A new signing secret, printed once; the old one keeps signing beside it for 24 hours.')
    .argument('<endpoint>', 'the wh_ id')
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(async (id: string, opts: { json?: boolean; by?: string }) => {
      const { endpoint, secret } = await withStorage(({ storage, clock }) =>
        rotateSecret(storage, clock, null, id, operatorActor(opts.by)),
      );
      printResult(
        opts.json,
        { ...endpoint, secret },
        () => `Rotated the secret of ${oneLine(endpoint)}\nNew signing secret (shown this once): ${secret}`,
      );
    });

  cmd
    .command('resend')
    .description(
      'Deliver an event to the endpoint again, whatever its delivery came to; or, with --since, every delivery that failed since the instant.',
    )
    .argument('<endpoint>', 'the wh_ id')
    .argument('[event]', 'the whe_ id')
    .option('--since <iso>', 'resend every failed delivery made at or after this instant (ISO 8601 with an offset)')
    .option('--by <name>', 'with --since: who is running this, for the audit log (default: the OS user)')
    .option('--json', 'print one JSON document')
    .action(async (id: string, event: string | undefined, opts: ResendOptions) => {
      if (opts.since === undefined) {
        if (event === undefined) throw invalid('resend needs an event id (whe_…) or --since ISO, one of the two');
        await withStorage(({ storage, clock }) => resendDelivery(storage, clock, null, id, event));
        printResult(opts.json, { endpoint: id, event, status: 'pending' }, () => `Queued ${event} for ${id} again.`);
        return;
      }
      if (event !== undefined) throw invalid('resend takes an event id or --since, not both');
      const since = sinceInstant(opts.since);
      const result = await withStorage(({ storage, clock }) =>
        resendFailedSince(storage, clock, null, id, since, operatorActor(opts.by)),
      );
      printResult(opts.json, result, () => resentLine(result.resent, id, opts.since!));
    });

  cmd
    .command('send-test')
    .description('Send the endpoint a webhook.test event.')
    .argument('<endpoint>', 'the wh_ id')
    .option('--json', 'print one JSON document')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStorage(({ storage, clock }) => sendTestEvent(storage, clock, null, id));
      printResult(
        opts.json,
        { endpoint: id, type: 'webhook.test', status: 'pending' },
        () => `Queued a webhook.test event for ${id}.`,
      );
    });
  return cmd;
}
