import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { newId } from '../../src/lib/ids.ts';
import type { CreateKeyInput } from '../../src/resources/keys/key.service.ts';
import { personActor, type Actor } from '../../src/resources/actor.model.ts';
import type { CreateCustomerBody, UpdateCustomerBody } from '../../src/resources/customers/customer-body.schema.ts';
import {
  createCustomer as create,
  deleteCustomer,
  updateCustomer,
  type CustomerResult,
  type IfMatch,
} from '../../src/resources/customers/customer.service.ts';
import type { Customer } from '../../src/resources/customers/customer.schema.ts';
import { changeMembership } from '../../src/resources/customers/membership.service.ts';
import type { WritePipeline } from '../../src/resources/writes/write.pipeline.ts';
import { addStaff, setWorkspaceLimit } from '../../src/resources/workspaces/workspace.service.ts';
import type { TestApp, TestKey } from './app.ts';

/** Helpers for the customer-write suites: requests with fresh Idempotency-Keys, fixtures. */
export function post(
  t: TestApp,
  key: TestKey,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.call(key, {
    method: 'POST',
    url,
    payload: body as object,
    headers: { 'idempotency-key': randomUUID(), ...headers },
  });
}

export function patch(t: TestApp, key: TestKey, id: string, body: unknown, headers: Record<string, string> = {}) {
  return t.call(key, { method: 'PATCH', url: `/customers/${id}`, payload: body as object, headers });
}

export function del(t: TestApp, key: TestKey, url: string) {
  return t.call(key, { method: 'DELETE', url });
}

export function get(t: TestApp, key: TestKey, id: string) {
  return t.call(key, { method: 'GET', url: `/customers/${id}` });
}

export async function createCustomer(t: TestApp, key: TestKey, body: Record<string, unknown> = {}) {
  const res = await post(t, key, '/customers', { first_name: 'Ada', ...body });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; version: string; [k: string]: unknown };
}

/** Tags and lists are made in the workspace, not through the API. */
export async function makeTag(t: TestApp, name = 'VIP'): Promise<string> {
  const id = newId('tag');
  const now = t.clock.now;
  await t.storage.db
    .insertInto('tags')
    .values({ id, workspace_id: t.workspaceId, name, created_at: now, updated_at: now })
    .execute();
  return id;
}

export async function makeList(t: TestApp, name = 'Newsletter'): Promise<string> {
  const id = newId('list');
  const now = t.clock.now;
  await t.storage.db
    .insertInto('lists')
    .values({
      id,
      workspace_id: t.workspaceId,
      name,
      slug: name.toLowerCase(),
      description: null,
      kind: 'manual',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export async function makeVenue(t: TestApp, country: string | null): Promise<string> {
  const id = newId('venue');
  const now = t.clock.now;
  const data = {
    name: 'Main',
    slug: 'main',
    booking_code: null,
    timezone: 'Australia/Sydney',
    currency: 'aud',
    address: { line1: null, city: null, state: null, postal_code: null, country },
    phone: null,
    email: null,
    active: true,
  };
  await t.storage.db
    .insertInto('venues')
    .values({ id, workspace_id: t.workspaceId, created_at: now, updated_at: now, data: JSON.stringify(data) })
    .execute();
  return id;
}

export async function countRows(
  t: TestApp,
  table: 'customers' | 'change_log' | 'idempotency_keys' | 'customer_tags' | 'customer_lists',
) {
  const row = await t.storage.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const ROOMY = {
  requests_per_minute: 1_000_000_000,
  requests_per_day: 1_000_000_000,
  writes_per_minute: 1_000_000_000,
  writes_per_day: 1_000_000_000,
  removals_per_day: 1_000_000_000,
};

/** The workspace's and new keys' limits out of the way, for suites that send thousands of requests. */
export async function roomy(t: TestApp): Promise<void> {
  await setWorkspaceLimit(t.storage, t.clock.fn, t.workspaceId, 'requests_per_minute', ROOMY.requests_per_minute);
  await t.keysCache.refresh();
}

export function roomyKey(t: TestApp, input: Partial<CreateKeyInput> = {}): Promise<TestKey> {
  return t.makeKey({ name: 'roomy', ...input, limits: ROOMY });
}

/** A staff member as an actor: the console's path into the same services. */
export async function staffActor(t: TestApp, livemode: boolean): Promise<Actor> {
  const staff = await addStaff(t.storage, t.clock.fn, {
    workspaceId: t.workspaceId,
    email: `staff-${randomUUID()}@example.com`,
    name: 'Staff',
    role: 'staff',
  });
  return personActor('staff', staff.id, { workspaceId: t.workspaceId, livemode }, t.clock.fn);
}

/** The customer writes as `actor` makes them through the write pipeline (no HTTP): staff, an operator, a key. */
export function writesAs(writes: WritePipeline, actor: Actor) {
  // A write answers the customer's JSON text, as sent; the tests read it as a value.
  const parsed = async (answer: Promise<CustomerResult>) => {
    const { record, version } = await answer;
    return { record: JSON.parse(record.text) as Customer, version };
  };
  const membership = (kind: 'tag' | 'list', member: boolean) => (customerId: string, id: string) =>
    parsed(writes.run(actor, changeMembership, { customerId, kind, id, member }));
  return {
    actor,
    create: (body: CreateCustomerBody) => parsed(writes.run(actor, create, body)),
    update: (id: string, body: UpdateCustomerBody, ifMatch: IfMatch = null) =>
      parsed(writes.run(actor, updateCustomer, { id, body, ifMatch })),
    delete: (id: string) => writes.run(actor, deleteCustomer, { id }),
    tag: membership('tag', true),
    untag: membership('tag', false),
    list: membership('list', true),
    unlist: membership('list', false),
  };
}
export type Writer = ReturnType<typeof writesAs>;
