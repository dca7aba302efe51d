import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Clock } from '../../src/lib/time.ts';
import type { KeyCache } from '../../src/resources/keys/key.cache.ts';
import { createKey, type CreateKeyInput } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { OpenApiChecker, type FixtureRoute } from './openapi-check.ts';
import { freshStorage, type TestStorage } from './storage.ts';

export interface TestKey {
  id: string;
  secret: string;
}

export interface TestApp {
  app: FastifyInstance;
  storage: TestStorage;
  keysCache: KeyCache;
  config: Config;
  workspaceId: string;
  /** read_write test key, read_write live key, read live key. */
  keys: { test: TestKey; live: TestKey; liveRead: TestKey };
  clock: { now: number; fn: Clock };
  makeKey(input: Partial<CreateKeyInput> & { workspaceId?: string }): Promise<TestKey>;
  /** A request with the key's Authorization header and the current Service-Version. */
  call(key: TestKey | null, options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function makeTestApp(
  engine: 'sqlite' | 'postgres',
  options: {
    env?: Record<string, string>;
    clock?: number;
    /**
     * Extra routes (test fixtures) registered before the app is ready. They are outside the
     * OpenAPI document; the checker is told exactly which they are (and no others).
     */
    routes?: (app: FastifyInstance) => void;
  } = {},
): Promise<TestApp> {
  const storage = await freshStorage(engine);
  const config = loadConfig({ BASE_URL: 'http://api.test', ...options.env });
  const clock: { now: number; fn: Clock } = { now: options.clock ?? Date.now(), fn: () => clock.now };
  const { app, keys: keysCache } = await buildApp(config, { storage, clock: clock.fn, logger: false });
  const fixtures = options.routes ? registerFixtures(app, options.routes) : [];
  await app.ready();
  const checker = new OpenApiChecker(app, fixtures);
  const ws = await createWorkspace(storage, clock.fn, { name: 'Test Workspace' });
  const makeKey = async (input: Partial<CreateKeyInput> & { workspaceId?: string }): Promise<TestKey> => {
    const { key, secret } = await createKey(storage, clock.fn, {
      workspaceId: ws.id,
      name: 'test key',
      mode: 'test',
      access: 'read_write',
      ...input,
    });
    return { id: key.id, secret };
  };
  const keys = {
    test: await makeKey({ name: 'test rw', mode: 'test', access: 'read_write' }),
    live: await makeKey({ name: 'live rw', mode: 'live', access: 'read_write' }),
    liveRead: await makeKey({ name: 'live read', mode: 'live', access: 'read' }),
  };
  return {
    app,
    storage,
    keysCache,
    config,
    workspaceId: ws.id,
    keys,
    clock,
    makeKey,
    call: async (key, opts) => {
      const res = await app.inject({
        ...opts,
        headers: {
          'service-version': '2026-10-08',
          ...(key ? { authorization: `Bearer ${key.secret}` } : {}),
          ...(opts.headers ?? {}),
        },
      });
      // Every answer a test sees is also checked against the published OpenAPI document.
      checker.check(
        opts.method ?? 'GET',
        String(opts.url ?? '/'),
        res.statusCode,
        res.headers['content-type'] as string | undefined,
        res.body,
        res.headers,
      );
      return res;
    },
    close: async () => {
      await app.close();
      await storage.drop();
    },
  };
}

/** Registers a test's fixture routes and returns them: what Fastify reports while it runs. */
function registerFixtures(app: FastifyInstance, routes: (app: FastifyInstance) => void): FixtureRoute[] {
  const fixtures: FixtureRoute[] = [];
  let registering = true;
  app.addHook('onRoute', (route) => {
    if (registering) for (const method of [route.method].flat()) fixtures.push({ method, url: route.url });
  });
  try {
    routes(app);
  } finally {
    registering = false;
  }
  if (fixtures.length === 0) throw new Error('the `routes` option registered no route');
  return fixtures;
}
