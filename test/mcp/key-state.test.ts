import { createServer, type AddressInfo } from 'node:net';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { insertList, insertTag } from '../helpers/fixtures.ts';
import { runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli } from '../cli/cli.ts';
import { type Agent, connectAgent, eventually, makeKey } from './mcp-client.ts';

/**
 * What the agent is told when the key stops working or a limit is reached. A
 * paused or refused key means stop and ask a person; a limit means wait so long.
 */
const ASKS_A_PERSON = /Stop: .*Ask a person/s;

describe.each(ENGINES)('venue-api mcp when the key cannot go on, on %s', { timeout: 60_000 }, (engine) => {
  let storage: TestStorage;
  let server: ServerProcess;
  let workspaceId: string;
  const agents: Agent[] = [];
  const agent = async (secret: string, url = server.url) => {
    const a = await connectAgent(url, secret);
    agents.push(a);
    return a;
  };

  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, systemClock, { name: 'Agents' })).id;
    // Key changes reach the server within KEY_REFRESH_MS: short, so a pause shows at once.
    server = await startServer({ DATABASE_URL: storage.url, KEY_REFRESH_MS: '100' });
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await server?.stop();
    await storage?.drop();
  });

  it('after `venue-api keys pause` every tool answers key_paused and asks for a person', async () => {
    const key = await makeKey(storage, { workspaceId, mode: 'test', access: 'read_write' });
    const a = await agent(key.secret);
    const customer = (await a.call('create_customer', { first_name: 'Before', last_name: 'Pause' })).json();
    const tag = await insertTag(storage.db, { workspaceId });
    const list = await insertList(storage.db, { workspaceId });
    const calls: Record<string, Record<string, unknown>> = {
      describe_key: {},
      list_records: { collection: 'customers' },
      get_record: { collection: 'customers', id: customer.id },
      create_customer: { first_name: 'After', last_name: 'Pause' },
      update_customer: { id: customer.id, nickname: 'Paused' },
      delete_customer: { id: customer.id },
      add_customer_tag: { customer: customer.id, tag: tag.id },
      remove_customer_tag: { customer: customer.id, tag: tag.id },
      add_customer_to_list: { customer: customer.id, list: list.id },
      remove_customer_from_list: { customer: customer.id, list: list.id },
    };
    expect(Object.keys(calls).sort()).toEqual(await a.toolNames());

    const paused = await cli(storage, 'keys', 'pause', key.id, '--json');
    expect(paused.json()).toMatchObject({ id: key.id, status: 'paused' });
    await eventually(
      'the pause reaches the server',
      () => a.call('list_records', { collection: 'customers' }),
      (r) => r.isError,
    );
    for (const [tool, args] of Object.entries(calls)) {
      const res = await a.call(tool, args);
      expect(res.isError, tool).toBe(true);
      expect(res.text, tool).toMatch(/^API error key_paused \(HTTP 403\)/);
      expect(res.text, tool).toMatch(ASKS_A_PERSON);
      expect(res.text, tool).toMatch(/resumes it in the developer settings/);
    }
    const customers = await storage.db
      .selectFrom('customers')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .execute();
    expect(customers.map((c) => c.id)).toEqual([customer.id]);
  });

  it('a key paused at start offers only describe_key, which says to stop; once resumed, the tools come back', async () => {
    const key = await makeKey(storage, { workspaceId, mode: 'live', access: 'read' });
    await changeKeyStatus(storage, systemClock, key.id, 'pause', 'paused by a test');
    await eventually(
      'the pause reaches the server',
      () => fetch(`${server.url}/key`, { headers: { authorization: `Bearer ${key.secret}` } }).then((r) => r.status),
      (status) => status === 403,
    );
    const a = await agent(key.secret);
    expect(await a.toolNames()).toEqual(['describe_key']);
    expect(a.stderr()).toMatch(/only describe_key is offered: API error key_paused/);
    const told = await a.call('describe_key');
    expect(told.isError).toBe(true);
    expect(told.text).toMatch(ASKS_A_PERSON);

    let changed = 0;
    a.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changed++;
    });
    await changeKeyStatus(storage, systemClock, key.id, 'resume');
    const described = await eventually(
      'the resume reaches the server',
      () => a.call('describe_key'),
      (r) => !r.isError,
    );
    expect(described.json()).toMatchObject({ id: key.id, access: 'read' });
    expect(await a.toolNames()).toEqual(['describe_key', 'get_record', 'list_records']);
    expect(changed).toBeGreaterThan(0);
  });

  it('a key the API refuses is unauthorized: stop and ask a person', async () => {
    const key = await makeKey(storage, { workspaceId, mode: 'live', access: 'read_write' });
    const a = await agent(key.secret);
    const revoked = await runCliProcess(['keys', 'revoke', key.id], { DATABASE_URL: storage.url });
    expect(revoked.code).toBe(0);
    const res = await eventually(
      'the revoke reaches the server',
      () => a.call('list_records', { collection: 'venues' }),
      (r) => r.isError,
    );
    expect(res.text).toMatch(/^API error unauthorized \(HTTP 401\)/);
    expect(res.text).toMatch(ASKS_A_PERSON);
    expect(res.text).toMatch(/VENUE_API_KEY/);

    const stranger = await agent(`vw_test_${'A'.repeat(38)}`);
    expect(await stranger.toolNames()).toEqual(['describe_key']);
    expect((await stranger.call('describe_key')).text).toMatch(/unauthorized.*Ask a person/s);
  });

  it('a write over its limit is rate_limited and says how long to wait', async () => {
    const key = await makeKey(storage, {
      workspaceId,
      mode: 'live',
      access: 'read_write',
      limits: { writes_per_minute: 1 },
    });
    const a = await agent(key.secret);
    // Three writes in a moment: a minute's window can turn between two of them, not twice.
    const answers = [];
    for (const name of ['One', 'Two', 'Three']) answers.push(await a.call('create_customer', { first_name: name }));
    const refused = answers.filter((r) => r.isError);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) {
      expect(r.text).toMatch(/^API error rate_limited \(HTTP 429\)/);
      expect(r.text).toMatch(/\(writes_per_minute\)\. Wait \d+ seconds? before calling again/);
    }
  });

  it('an API that cannot be reached is a tool error that says so', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const a = await agent('vw_test_whatever', `http://127.0.0.1:${port}`);
    expect(await a.toolNames()).toEqual(['describe_key']);
    const res = await a.call('describe_key');
    expect(res.isError).toBe(true);
    expect(res.text).toContain(`The API at http://127.0.0.1:${port} could not be reached (ECONNREFUSED).`);
    expect(res.text).toMatch(/tell a person/);
  });
});

describe('venue-api mcp configuration', () => {
  it('without VENUE_API_KEY, or with a VENUE_API_URL that is not http(s), it exits 1 naming the variable', async () => {
    const noKey = await runCliProcess(['mcp'], { VENUE_API_KEY: '' });
    expect(noKey.code).toBe(1);
    expect(noKey.stdout).toBe('');
    expect(noKey.stderr).toMatch(/^venue-api: VENUE_API_KEY is not set/);
    const badUrl = await runCliProcess(['mcp'], { VENUE_API_KEY: 'vw_test_x', VENUE_API_URL: 'ftp://example.com' });
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/^venue-api: VENUE_API_URL must be an http\(s\) URL/);
  });
});
