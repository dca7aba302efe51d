import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import type { TestApp, TestKey } from './app.ts';
import type { Where } from './fixtures.ts';

/**
 * A workspace of its own with a live and a test read key, so a test can assert on
 * exactly the rows it made, whatever else the suite's app holds.
 */
export interface Tenant {
  workspaceId: string;
  live: TestKey;
  test: TestKey;
  /** Where live rows go; `testRows` is the same workspace's test mode. */
  liveRows: Where;
  testRows: Where;
}

export async function newTenant(t: TestApp, name = 'Tenant'): Promise<Tenant> {
  const ws = await createWorkspace(t.storage, t.clock.fn, { name });
  return {
    workspaceId: ws.id,
    live: await t.makeKey({ workspaceId: ws.id, name: 'live read', mode: 'live', access: 'read' }),
    test: await t.makeKey({ workspaceId: ws.id, name: 'test read', mode: 'test', access: 'read' }),
    liveRows: { workspaceId: ws.id, livemode: true },
    testRows: { workspaceId: ws.id, livemode: false },
  };
}

/** The ids of records, in their order. */
export const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

/** GET a path with a key and return status and parsed body. */
export async function get(t: TestApp, key: TestKey, url: string, headers: Record<string, string> = {}) {
  const res = await t.call(key, { method: 'GET', url, headers });
  return { status: res.statusCode, body: res.body ? res.json() : null, headers: res.headers };
}

/** Every page of a list, following next_cursor; fails the walk on any non-200. */
export async function walk<R = { id: string }>(
  t: TestApp,
  key: TestKey,
  url: string,
  onPage?: (index: number) => Promise<void>,
): Promise<{ records: R[]; pages: R[][] }> {
  const pages: R[][] = [];
  let cursor: string | undefined;
  const join = url.includes('?') ? '&' : '?';
  for (let i = 0; i < 200; i++) {
    const page = await get(t, key, cursor ? `${url}${join}starting_after=${cursor}` : url);
    if (page.status !== 200) throw new Error(`page ${i} of ${url}: ${page.status} ${JSON.stringify(page.body)}`);
    pages.push(page.body.data);
    if (!page.body.has_more) {
      if ('next_cursor' in page.body) throw new Error('next_cursor present on the last page');
      return { records: pages.flat(), pages };
    }
    cursor = page.body.next_cursor;
    await onPage?.(i);
  }
  throw new Error(`${url}: more than 200 pages`);
}
