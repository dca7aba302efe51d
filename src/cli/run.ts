import { userInfo } from 'node:os';
import { CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, postgresBounds, type Config } from '../config.ts';
import { MigrationRefused, missingMigrationsMessage, prepareSchema } from '../db/migrate.ts';
import { unavailableReason } from '../db/unavailable.ts';
import { ApiError, type ErrorCode } from '../errors.ts';
import { systemClock, type Clock } from '../lib/time.ts';
import type { AuditActor } from '../resources/audit/audit.model.ts';
import { type AppStorage, openAppStorage } from '../storage.ts';

/**
 * What every CLI command shares: the storage named by DATABASE_URL, brought up to date
 * before the command runs (DECISIONS "Operator CLI"; with MIGRATE=off only checked), and one
 * way to print an answer.
 */
export interface CliContext {
  config: Config;
  storage: AppStorage;
  clock: Clock;
}

/**
 * The CLI serves no one while it waits, so it waits for the server's write lock longer than
 * the server waits for its (SQLITE_BUSY_TIMEOUT_MS): the server's transactions are short.
 */
const CLI_BUSY_TIMEOUT_MS = 10_000;

/**
 * Every write of a command goes through the write path, so it has returned only once durable
 * (or failed); the command prints its answer after this resolves. A failed last COMMIT at
 * close fails the command too, so nothing is reported that was not stored; when the command
 * already failed, its own error is the one reported.
 */
export async function withStorage<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const storage = await openAppStorage(config.databaseUrl, {
    sqliteBusyTimeoutMs: CLI_BUSY_TIMEOUT_MS,
    postgres: postgresBounds(config, 'bulk'),
  });
  let value: T;
  try {
    // MIGRATE=off: a deploy migrates as a step of its own, and a command does not do it by the way.
    const { missing } = await prepareSchema(storage, config.migrate);
    if (missing.length > 0) throw new MigrationRefused(missingMigrationsMessage(missing));
    value = await fn({ config, storage, clock: systemClock });
  } catch (err) {
    await storage.close().catch(() => undefined);
    throw err;
  }
  await storage.close();
  return value;
}

/** `--json` prints exactly one JSON document on stdout; otherwise readable text. */
export function printResult(json: boolean | undefined, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** Whether the command line asks for `--json` (options end at `--`). */
export function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * A failure as the one JSON document `--json` promises (DECISIONS "Operator CLI"): the
 * API's error code where the failure is one of its errors, `invalid_request` for a usage
 * or configuration mistake, `service_unavailable` when the database cannot serve now (a
 * full disk, an outage: nothing was written, try again), `internal_error` for anything else.
 */
export function failureDocument(err: unknown, message: string): { error: { code: ErrorCode; message: string } } {
  const code: ErrorCode =
    err instanceof ApiError
      ? err.code
      : err instanceof CommanderError || err instanceof ConfigError
        ? 'invalid_request'
        : err instanceof MigrationRefused
          ? 'conflict'
          : unavailableReason(err)
            ? 'service_unavailable'
            : 'internal_error';
  return { error: { code, message } };
}

/** Commander argument parsers: a bad value is a usage error (exit 1, one line on stderr). */
export function positiveInt(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError('expected a whole number of 1 or more.');
  }
  return n;
}

export function port(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535.');
  return n;
}

/** `NAME=VALUE` (the value a whole number), as used by every `--limit`. */
export function nameEqualsInt(raw: string): [string, number] {
  const m = /^([a-z_]+)=(\d+)$/.exec(raw.trim());
  if (!m) throw new InvalidArgumentError('expected NAME=VALUE, for example requests_per_minute=600.');
  return [m[1]!, Number(m[2])];
}

export function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `--by NAME` on the commands that change keys, staff or undo: who the audit log names. */
export const BY_OPTION = ['--by <name>', 'who is running this, for the audit log (default: the OS user)'] as const;

/** The operator: `--by` when given, else the account running the CLI (`cli:<user>`). */
export function operatorName(by?: string): string {
  const named = by?.trim();
  if (named) return named.slice(0, 200);
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

export function operatorActor(by?: string): AuditActor {
  return { kind: 'operator', name: operatorName(by) };
}
