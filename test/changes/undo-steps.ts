import fc from 'fast-check';
import type { TestApp, TestKey } from '../helpers/app.ts';
import type { Writer } from '../helpers/writes.ts';

/**
 * Random edits for the undo property: by the key K, another key O (both through the HTTP
 * API) and a staff member S (through the services the console uses). Small value sets, so
 * edits collide often: the same field, the same tag, the same email.
 */
const value = fc.constantFrom('a', 'b', null);
const Edit = fc.oneof(
  fc.record({
    op: fc.constant('update' as const),
    fields: fc.record(
      { last_name: value, nickname: value, company: value, address: fc.record({ line1: value }) },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ op: fc.constant('email' as const), email: fc.constantFrom('one', 'two') }),
  fc.record({ op: fc.constantFrom('tag' as const, 'untag' as const), which: fc.nat(1) }),
  fc.record({ op: fc.constantFrom('list' as const, 'unlist' as const), which: fc.nat(1) }),
  fc.record({ op: fc.constant('delete' as const) }),
  fc.record({ op: fc.constant('create' as const), email: fc.constantFrom('one', 'two', null) }),
);
export const Step = fc.record({ actor: fc.constantFrom('K', 'K', 'O', 'S'), target: fc.nat(7), edit: Edit });
export type Step = typeof Step extends fc.Arbitrary<infer T> ? T : never;

export interface World {
  t: TestApp;
  staff: Writer;
  keys: { K: TestKey; O: TestKey };
  tags: string[];
  lists: string[];
  /** Customers the steps pick from (`target` modulo its length); creates add to it. */
  pool: string[];
  /** Makes this run's emails its own. */
  run: number;
}

/** Any 4xx is a refused edit (a deleted customer, a taken email): fine; a 5xx is not. */
async function refusedIsFine(p: Promise<unknown>): Promise<void> {
  await p.catch((e: { status?: number }) => {
    if (!e.status || e.status >= 500) throw e;
  });
}

async function http(w: World, key: TestKey, method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: object) {
  const headers: Record<string, string> = method === 'POST' ? { 'idempotency-key': `${w.run}-${Math.random()}` } : {};
  const res = await w.t.call(key, { method, url, headers, ...(body ? { payload: body } : {}) });
  if (res.statusCode >= 500) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

export async function applyStep(w: World, { actor, target, edit }: Step): Promise<void> {
  const id = w.pool[target % w.pool.length]!;
  const key = actor === 'S' ? null : w.keys[actor as 'K' | 'O'];
  const email = (name: string) => `${name}-${w.run}@example.com`;
  switch (edit.op) {
    case 'update':
    case 'email': {
      const body = edit.op === 'update' ? edit.fields : { email: email(edit.email) };
      if (key) await http(w, key, 'PATCH', `/customers/${id}`, body);
      else await refusedIsFine(w.staff.update(id, body));
      return;
    }
    case 'tag':
    case 'untag': {
      const tag = w.tags[edit.which]!;
      if (key && edit.op === 'tag') await http(w, key, 'POST', `/customers/${id}/tags`, { tag });
      else if (key) await http(w, key, 'DELETE', `/customers/${id}/tags/${tag}`);
      else await refusedIsFine(edit.op === 'tag' ? w.staff.tag(id, tag) : w.staff.untag(id, tag));
      return;
    }
    case 'list':
    case 'unlist': {
      const list = w.lists[edit.which]!;
      if (key && edit.op === 'list') await http(w, key, 'POST', `/customers/${id}/lists`, { list });
      else if (key) await http(w, key, 'DELETE', `/customers/${id}/lists/${list}`);
      else await refusedIsFine(edit.op === 'list' ? w.staff.list(id, list) : w.staff.unlist(id, list));
      return;
    }
    case 'delete':
      if (key) await http(w, key, 'DELETE', `/customers/${id}`);
      else await refusedIsFine(w.staff.delete(id));
      return;
    case 'create': {
      const body = { first_name: 'New', ...(edit.email ? { email: email(edit.email) } : {}) };
      if (key) {
        const res = await http(w, key, 'POST', '/customers', body);
        if (res.statusCode === 201) w.pool.push(res.json().id);
      } else {
        const made = await w.staff.create(body).catch(() => null);
        if (made) w.pool.push(made.record.id);
      }
    }
  }
}
