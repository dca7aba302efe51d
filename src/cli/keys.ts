import { Command } from 'commander';
import { invalid } from '../errors.ts';
import { parseInstantWithOffset, toInstant } from '../lib/time.ts';
import type { ApiKey } from '../resources/keys/key.model.ts';
import { listKeyRecords, type KeyRecord } from '../resources/keys/key.repo.ts';
import { toKeyObject } from '../resources/keys/key.schema.ts';
import {
  DEFAULT_ROLL_OVERLAP_S,
  MAX_ROLL_OVERLAP_S,
  rollKey,
  setKeyAllowedIps,
} from '../resources/keys/key-access.service.ts';
import { changeKeyStatus, createKey } from '../resources/keys/key.service.ts';
import { getWorkspace } from '../resources/workspaces/workspace.service.ts';
import { BY_OPTION, commaList, nameEqualsInt, operatorActor, printResult, withStorage } from './run.ts';

/** The GET /key object plus what an operator needs to tell keys apart. */
function describeKey(key: ApiKey) {
  return {
    ...toKeyObject(key),
    name: key.name,
    status: key.status,
    pause_reason: key.pauseReason,
    previous_secret_expires_at: toInstant(key.previousSecretExpiresAt),
    created_at: toInstant(key.createdAt),
  };
}

/** `keys list`: also who made the key, who agreed to the terms and when (SPEC "Authentication" 2). */
function describeRecord(key: KeyRecord) {
  return {
    ...describeKey(key),
    created_by: key.createdBy,
    agreed_by: key.agreedBy,
    agreed_at: toInstant(key.agreedAt),
    last_used_at: toInstant(key.lastUsedAt),
  };
}

function oneLine(key: ApiKey): string {
  const paused = key.status === 'paused' && key.pauseReason ? ` (${key.pauseReason})` : '';
  return `${key.id}  "${key.name}"  ${key.mode} ${key.access} ${key.kind}  ${key.status}${paused}`;
}

interface CreateOptions {
  workspace: string;
  name: string;
  mode: string;
  access: string;
  restricted?: boolean;
  canRead?: string[];
  canWrite?: string[];
  contactsMasked?: boolean;
  expiresAt?: string;
  limit: Record<string, number>;
  allowIp?: string[];
  agreedBy?: string;
  by?: string;
  json?: boolean;
}

function expiry(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const ms = parseInstantWithOffset(raw);
  if (ms === null)
    throw invalid(`--expires-at must be ISO 8601 with an offset, e.g. 2027-01-01T00:00:00Z (got "${raw}")`);
  return ms;
}

async function create(opts: CreateOptions): Promise<void> {
  if (opts.mode !== 'test' && opts.mode !== 'live') throw invalid('--mode must be test or live');
  if (opts.access !== 'read' && opts.access !== 'read_write') throw invalid('--access must be read or read_write');
  if (!opts.restricted && (opts.canRead || opts.canWrite))
    throw invalid('--can-read and --can-write need --restricted');
  const { key, secret } = await withStorage(({ storage, clock }) =>
    createKey(storage, clock, {
      workspaceId: opts.workspace,
      name: opts.name,
      mode: opts.mode as 'test' | 'live',
      access: opts.access as 'read' | 'read_write',
      ...(opts.restricted ? { restricted: { canRead: opts.canRead ?? [], canWrite: opts.canWrite ?? [] } } : {}),
      contactsMasked: opts.contactsMasked === true,
      expiresAt: expiry(opts.expiresAt),
      limits: opts.limit,
      allowedIps: opts.allowIp ?? [],
      createdBy: 'operator CLI',
      agreedBy: opts.agreedBy ?? null,
      by: operatorActor(opts.by),
    }),
  );
  printResult(
    opts.json,
    { ...toKeyObject(key), secret },
    () => `Created key ${oneLine(key)}\nSecret (shown this once, store it now): ${secret}`,
  );
}

/** `keys create|list|pause|resume|revoke` (SPEC "Authentication", DECISIONS "Keys"). */
export function keysCommand(): Command {
  const cmd = new Command('keys').description("Create and manage a workspace's API keys.");

  cmd
    .command('create')
    .description('Create an API key; its secret is printed once.')
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .requiredOption('--name <name>', 'a name people recognise')
    .requiredOption('--mode <mode>', 'test or live')
    .requiredOption('--access <access>', 'read or read_write')
    .option('--restricted', 'pick the collections and writes with --can-read and --can-write')
    .option('--can-read <collections>', 'comma-separated collections, e.g. customers,bookings', commaList)
    .option('--can-write <writes>', 'comma-separated writes, e.g. customers.create,customers.update', commaList)
    .option('--contacts-masked', "never show customers' email or phone in full")
    .option('--expires-at <iso>', 'when the key stops working (ISO 8601 with an offset)')
    .option(
      '--limit <NAME=VALUE>',
      'override one of the key limits (repeatable)',
      (raw: string, acc: Record<string, number>) => {
        const [name, value] = nameEqualsInt(raw);
        return { ...acc, [name]: value };
      },
      {},
    )
    .option(
      '--allow-ip <addresses>',
      'comma-separated IPv4/IPv6 addresses and CIDR ranges it may be used from',
      commaList,
    )
    .option('--agreed-by <email>', 'who agreed to the API terms, acceptable use policy and data and privacy terms')
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(create);

  cmd
    .command('list')
    .description("List a workspace's keys, newest first.")
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .option('--json', 'print one JSON document')
    .action(async (opts: { workspace: string; json?: boolean }) => {
      const keys = await withStorage(async ({ storage }) => {
        await getWorkspace(storage.db, opts.workspace);
        return listKeyRecords(storage.db, opts.workspace);
      });
      printResult(opts.json, keys.map(describeRecord), () =>
        keys.length === 0 ? `No keys in ${opts.workspace}.` : keys.map(oneLine).join('\n'),
      );
    });

  for (const move of ['pause', 'resume', 'revoke'] as const) {
    const past = { pause: 'Paused', resume: 'Resumed', revoke: 'Revoked' }[move];
    cmd
      .command(move)
      .description(`${move[0]!.toUpperCase()}${move.slice(1)} a key.`)
      .argument('<key>', 'the key_ id')
      .option(...BY_OPTION)
      .option('--json', 'print one JSON document')
      .action(async (keyId: string, opts: { by?: string; json?: boolean }) => {
        const key = await withStorage(({ storage, clock }) =>
          changeKeyStatus(storage, clock, keyId, move, null, operatorActor(opts.by)),
        );
        printResult(opts.json, describeKey(key), () => `${past} ${oneLine(key)}`);
      });
  }
  cmd
    .command('set')
    .description("Change a key's allowed addresses.")
    .argument('<key>', 'the key_ id')
    .requiredOption('--allow-ip <addresses>', 'comma-separated addresses and CIDR ranges; "" for anywhere', commaList)
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(async (keyId: string, opts: { allowIp: string[]; by?: string; json?: boolean }) => {
      const key = await withStorage(({ storage, clock }) =>
        setKeyAllowedIps(storage, clock, keyId, opts.allowIp, operatorActor(opts.by)),
      );
      const where = key.allowedIps.length ? key.allowedIps.join(', ') : 'anywhere';
      printResult(opts.json, toKeyObject(key), () => `${oneLine(key)}\nMay be used from ${where}.`);
    });

  cmd
    .command('roll')
    .description('Give a key a new secret, printed once; the old one keeps working for a while.')
    .argument('<key>', 'the key_ id')
    .option(
      '--old-expires-in <seconds>',
      `how long the old secret keeps working (0 for not at all, at most ${MAX_ROLL_OVERLAP_S})`,
      String(DEFAULT_ROLL_OVERLAP_S),
    )
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(async (keyId: string, opts: { oldExpiresIn: string; by?: string; json?: boolean }) => {
      const overlap = /^\d{1,9}$/.test(opts.oldExpiresIn.trim()) ? Number(opts.oldExpiresIn) : Number.NaN;
      const { key, secret } = await withStorage(({ storage, clock }) =>
        rollKey(storage, clock, keyId, overlap, operatorActor(opts.by)),
      );
      const until = toInstant(key.previousSecretExpiresAt);
      printResult(
        opts.json,
        { ...toKeyObject(key), secret, previous_secret_expires_at: until },
        () =>
          `Rolled key ${oneLine(key)}\nNew secret (shown this once, store it now): ${secret}\n` +
          (until ? `The previous secret works until ${until}.` : 'The previous secret no longer works.'),
      );
    });
  return cmd;
}
