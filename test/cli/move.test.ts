import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../src/db/index.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';
import { runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { ENGINES, PG_SERVER } from '../helpers/storage.ts';
import { rowCounts, tableContents } from '../helpers/table-rows.ts';

/**
 * Moving a SQLite deployment to PostgreSQL and back with `venue-api copy`, as an operator
 * would: made with the CLI and served by real server processes, copied, served again from
 * the copy with the keys made before the move, undone there, and copied back.
 */
const run = async (env: Record<string, string>, ...args: string[]) => {
  const res = await runCliProcess(args, env, 120_000);
  if (res.code !== 0) throw new Error(`venue-api ${args.join(' ')} failed (${res.code}):\n${res.stdout}${res.stderr}`);
  return res.stdout.trim().startsWith('{') ? JSON.parse(res.stdout) : res.stdout;
};

async function api(server: ServerProcess, secret: string, method: string, path: string, body?: unknown, headers = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' && !('idempotency-key' in headers) ? { 'idempotency-key': randomUUID() } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

async function contents(url: string) {
  const storage: Storage = await openStorage(url);
  try {
    return { rows: await tableContents(storage), drift: await membershipCountDrift(storage.db) };
  } finally {
    await storage.close();
  }
}

describe.runIf(ENGINES.includes('postgres'))('venue-api copy: SQLite to PostgreSQL and back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-move-'));
  const sqliteUrl = join(dir, 'venue.sqlite');
  const pgName = `venue_move_${randomBytes(6).toString('hex')}`;
  const pgUrl = `${PG_SERVER}/${pgName}`;
  const servers: ServerProcess[] = [];
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
    await client.connect();
    await client.query(text).finally(() => client.end());
  };

  afterAll(async () => {
    for (const s of servers) await s.stop();
    await admin(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a key made before the move works on the copy, undo of its changes works there, and every row matches', async () => {
    const onSqlite = { DATABASE_URL: sqliteUrl };
    const ws = await run(onSqlite, 'workspace', 'create', '--name', 'Moving', '--json');
    await run(
      onSqlite,
      'staff',
      'add',
      '--workspace',
      ws.id,
      '--email',
      'o@example.com',
      '--name',
      'O',
      '--role',
      'owner',
      '--password',
      'a long enough password 1',
      '--json',
    );
    const key = await run(
      onSqlite,
      'keys',
      'create',
      '--workspace',
      ws.id,
      '--name',
      'mover',
      '--mode',
      'live',
      '--access',
      'read_write',
      '--json',
    );
    await run(onSqlite, 'seed', '--workspace', ws.id, '--customers', '40', '--json');

    // Changes by the key on SQLite: a create (answer kept for its Idempotency-Key), an edit, a tag, a deletion.
    let server = await startServer(onSqlite);
    servers.push(server);
    const seeded = (await api(server, key.secret, 'GET', '/customers?limit=1')).json().data;
    const created = { first_name: 'Before', last_name: 'Move', email: `${randomUUID()}@example.com` };
    const first = await api(server, key.secret, 'POST', '/customers', created, { 'idempotency-key': 'move-1' });
    expect(first.status).toBe(201);
    const id = first.json().id as string;
    expect((await api(server, key.secret, 'PATCH', `/customers/${id}`, { nickname: 'Pre' })).status).toBe(200);
    const tag = (await api(server, key.secret, 'GET', '/tags?limit=1')).json().data[0].id as string;
    expect((await api(server, key.secret, 'POST', `/customers/${id}/tags`, { tag })).status).toBe(200);
    const gone = (await api(server, key.secret, 'POST', '/customers', { first_name: 'Gone' })).json().id as string;
    expect((await api(server, key.secret, 'DELETE', `/customers/${gone}`)).status).toBe(200);
    const shown = await api(server, key.secret, 'GET', `/customers/${id}`);
    const etag = shown.headers.get('etag')!;
    const page = (await api(server, key.secret, 'GET', '/customers?limit=3')).json();
    await server.stop();

    const source = await contents(sqliteUrl);
    expect(source.rows.change_log!.length).toBeGreaterThanOrEqual(4);
    expect(source.rows.idempotency_keys!.length).toBeGreaterThanOrEqual(2);
    expect(source.rows.customer_tags!.length).toBeGreaterThan(0);

    // Into a new, empty PostgreSQL database the copy migrates first.
    await admin(`CREATE DATABASE ${pgName}`);
    const copied = await run(onSqlite, 'copy', '--to', pgUrl, '--json');
    expect(copied.tables).toEqual(rowCounts(source.rows));
    const onPg = await contents(pgUrl);
    expect(onPg.rows).toEqual(source.rows);
    expect(onPg.drift).toEqual([]);

    // A second copy into it is refused and changes nothing.
    const again = await runCliProcess(['copy', '--to', pgUrl, '--json'], onSqlite, 120_000);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout).error.message).toMatch(/already holds data/);

    server = await startServer({ DATABASE_URL: pgUrl });
    servers.push(server);
    const me = await api(server, key.secret, 'GET', '/key');
    expect(me.status).toBe(200);
    expect(me.json().id).toBe(key.id);
    // The same version and cursor mean the same thing after the move.
    expect(
      (await api(server, key.secret, 'GET', `/customers/${id}`, undefined, { 'if-none-match': etag })).status,
    ).toBe(304);
    const next = await api(server, key.secret, 'GET', `/customers?limit=3&starting_after=${page.next_cursor}`);
    expect(next.status).toBe(200);
    expect((await api(server, key.secret, 'GET', `/customers/${id}`)).text).toBe(shown.text);
    // The stored answer to the first create replays byte for byte.
    const replay = await api(server, key.secret, 'POST', '/customers', created, { 'idempotency-key': 'move-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);

    const undo = await run({ DATABASE_URL: pgUrl }, 'undo', key.id, '--json');
    // The key's create, edit, tag, second create and deletion, newest first.
    expect(undo).toEqual({ reverted: 5, skipped: [] });
    // The customer the key made is gone again; the seeded ones it never touched are as they were.
    expect((await api(server, key.secret, 'GET', `/customers/${id}`)).status).toBe(404);
    expect((await api(server, key.secret, 'GET', '/customers?limit=1')).json().data).toEqual(seeded);
    await server.stop();

    // And back to SQLite, undo and all.
    const backUrl = join(dir, 'back.sqlite');
    const after = await contents(pgUrl);
    const back = await run({ DATABASE_URL: pgUrl }, 'copy', '--to', backUrl, '--json');
    expect(back.tables).toEqual(rowCounts(after.rows));
    expect((await contents(backUrl)).rows).toEqual(after.rows);
  }, 180_000);
});
