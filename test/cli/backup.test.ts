import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { cliJson, runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { PG_SERVER } from '../helpers/storage.ts';

/** `venue-api backup FILE [--json]` (DECISIONS "Operator CLI"): SQLite's online backup while the server writes. */
const ROOMY = ['requests_per_minute', 'requests_per_day', 'writes_per_minute', 'writes_per_day'].flatMap((name) => [
  '--limit',
  `${name}=100000000`,
]);

/** `venue-api …` with its own `--json` among the arguments. */
const run = (env: Record<string, string>, ...args: string[]) => cliJson(env, ...args.filter((a) => a !== '--json'));

interface Ack {
  id: string;
  sentAt: number;
  at: number;
}

describe('venue-api backup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-backup-'));
  const url = join(dir, 'venue.sqlite');
  let server: ServerProcess | undefined;
  let key: { id: string; secret: string };
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies while writes run: the copy opens and holds every write acknowledged before the backup began', async () => {
    const env = { DATABASE_URL: url };
    const ws = await run(
      env,
      'workspace',
      'create',
      '--name',
      'Backed up',
      '--limit',
      'requests_per_minute=100000000',
      '--json',
    );
    key = await run(
      env,
      'keys',
      'create',
      '--workspace',
      ws.id,
      '--name',
      'w',
      '--mode',
      'live',
      '--access',
      'read_write',
      ...ROOMY,
      '--json',
    );
    await run(env, 'seed', '--workspace', ws.id, '--customers', '3000', '--json');
    server = await startServer(env);
    const url0 = server.url;

    const acks: Ack[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        const sentAt = Date.now();
        const res = await fetch(`${url0}/customers`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key.secret}`,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ first_name: 'During', email: `${randomUUID()}@example.com` }),
        });
        const body = (await res.json()) as { id?: string };
        if (res.status !== 201) throw new Error(`write answered ${res.status}: ${JSON.stringify(body)}`);
        acks.push({ id: body.id!, sentAt, at: Date.now() });
      }
    };
    const writers = [writer(), writer(), writer()];
    while (acks.length < 150) await new Promise((r) => setTimeout(r, 20));

    const file = join(dir, 'backup.sqlite');
    const began = Date.now();
    const report = await run(env, 'backup', file, '--json');
    const ended = Date.now();
    await new Promise((r) => setTimeout(r, 200));
    writing = false;
    await Promise.all(writers);

    const before = acks.filter((a) => a.at < began);
    const during = acks.filter((a) => a.sentAt >= began && a.at <= ended);
    expect(during.length).toBeGreaterThan(0);
    const copy = new SQLite(file, { readonly: true });
    try {
      const held = new Set(
        copy
          .prepare(`select id from customers where id in (${before.map(() => '?').join(',')})`)
          .pluck()
          .all(...before.map((a) => a.id)),
      );
      expect(before.filter((a) => !held.has(a.id))).toEqual([]);
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      copy.close();
    }
    expect(report).toMatchObject({ file, pages: expect.any(Number), steps: expect.any(Number) });
    expect(report.steps).toBeGreaterThan(10);
    // A step is 256 KiB: bounded whatever the database's size (the figures are in docs/operations.md).
    // The bound is loose on purpose: a loaded machine can stall any process for a while.
    expect(report.longest_step_ms).toBeLessThan(5_000);
    const latency = (list: Ack[]) => list.map((a) => a.at - a.sentAt).sort((a, b) => a - b);
    const pct = (l: number[], p: number) => l[Math.min(l.length - 1, Math.floor(l.length * p))];
    const [was, while_] = [latency(before), latency(during)];
    console.log(
      `backup: ${report.pages} pages in ${report.steps} steps, ${report.seconds} s, longest step ${report.longest_step_ms} ms, last ${report.final_step_ms} ms; ` +
        `writes before: ${was.length}, p50 ${pct(was, 0.5)} ms, p99 ${pct(was, 0.99)} ms, max ${was.at(-1)} ms; ` +
        `during: ${while_.length}, p50 ${pct(while_, 0.5)} ms, p99 ${pct(while_, 0.99)} ms, max ${while_.at(-1)} ms`,
    );
  }, 180_000);

  it('makes the folders of a new file that are missing', async () => {
    const file = join(dir, 'nested', 'backups', 'first.sqlite');
    const made = await runCliProcess(['backup', file, '--json'], { DATABASE_URL: url });
    expect(made.code, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ file });
    const copy = new SQLite(file, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      copy.close();
    }
  });

  it('refuses a file that exists, and PostgreSQL (pointing to pg_dump)', async () => {
    const taken = join(dir, 'taken.sqlite');
    writeFileSync(taken, 'mine');
    const exists = await runCliProcess(['backup', taken, '--json'], { DATABASE_URL: url });
    expect(exists.code).toBe(1);
    expect(JSON.parse(exists.stdout).error.message).toMatch(/exists already/);
    const onPg = await runCliProcess(['backup', join(dir, 'pg.sqlite')], { DATABASE_URL: `${PG_SERVER}/postgres` });
    expect(onPg.code).toBe(1);
    expect(onPg.stderr).toMatch(/pg_dump/);
    expect(existsSync(join(dir, 'pg.sqlite'))).toBe(false);
  });

  it('restores a checked backup to a new path, where a server serves the same key', async () => {
    const file = join(dir, 'to-restore.sqlite');
    await run({ DATABASE_URL: url }, 'backup', file, '--json');
    const to = join(dir, 'restored', 'venue.sqlite');
    expect(await run({}, 'restore', file, '--to', to, '--json')).toEqual({ restored: to });
    const restored = await startServer({ DATABASE_URL: to });
    try {
      const res = await fetch(`${restored.url}/key`, { headers: { authorization: `Bearer ${key.secret}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { id: string }).id).toBe(key.id);
    } finally {
      await restored.stop();
    }
    const human = await runCliProcess(['restore', file, '--to', join(dir, 'again.sqlite')], {});
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/passed SQLite's integrity check and its schema is at \d{3}-/);
  }, 60_000);

  it('refuses a path that exists or has a WAL left, a file that is no venue-api backup, and PostgreSQL', async () => {
    const file = join(dir, 'to-restore.sqlite');
    const refused = async (args: string[], reason: RegExp) => {
      const res = await runCliProcess(['restore', ...args, '--json'], {});
      expect(res.code, res.stdout).toBe(1);
      expect(JSON.parse(res.stdout).error.message).toMatch(reason);
    };
    await refused([file, '--to', url], /exists: move it away/);
    const walLeft = join(dir, 'wal-left.sqlite');
    writeFileSync(`${walLeft}-wal`, '');
    await refused([file, '--to', walLeft], /wal-left\.sqlite-wal is left from another database/);
    const garbage = join(dir, 'garbage.sqlite');
    writeFileSync(garbage, 'not a database at all, only words'.repeat(200));
    await refused([garbage, '--to', join(dir, 'from-garbage.sqlite')], /not a readable SQLite database/);
    const other = join(dir, 'other.sqlite');
    const db = new SQLite(other);
    db.exec('create table notes (body text)');
    db.close();
    await refused([other, '--to', join(dir, 'from-other.sqlite')], /not a venue-api one/);
    await refused([join(dir, 'absent.sqlite'), '--to', join(dir, 'from-absent.sqlite')], /there is no backup/);
    await refused([file, '--to', `${PG_SERVER}/postgres`], /pg_restore/);
    for (const name of ['from-garbage', 'from-other', 'from-absent', 'wal-left']) {
      expect(existsSync(join(dir, `${name}.sqlite`))).toBe(false);
    }
  });
});
