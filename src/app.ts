import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { Storage } from './db/index.ts';
import { access } from './http/access.ts';
import { auth } from './http/auth.ts';
import { openApiRoute, registerOpenApi } from './http/openapi.ts';
import { installProblemHandlers } from './http/problems.ts';
import { newRequestId, requestContext } from './http/request-context.ts';
import { Problem } from './http/schemas.ts';
import { installValidators } from './http/validation.ts';
import { systemClock, type Clock } from './lib/time.ts';
import { resourceRoutes } from './resources/index.ts';
import { KeyCache } from './resources/keys/key-cache.ts';

export interface AppDeps {
  storage: Storage;
  clock?: Clock;
  keys?: KeyCache;
  logger?: boolean | object;
}

export interface App {
  app: FastifyInstance;
  keys: KeyCache;
}

/** The Fastify instance with its plugins and routes; it does not listen (CONVENTIONS 1). */
export async function buildApp(config: Config, deps: AppDeps): Promise<App> {
  const clock = deps.clock ?? systemClock;
  const keys = deps.keys ?? new KeyCache(deps.storage.db, config.keyRefreshMs, clock);
  // DECISIONS: HTTPS directly when TLS_CERT and TLS_KEY name PEM files, else behind a proxy.
  const https =
    config.tlsCert && config.tlsKey
      ? { https: { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } }
      : {};
  const app = Fastify({
    ...https,
    logger: deps.logger ?? { level: config.logLevel },
    genReqId: newRequestId,
    requestIdHeader: false,
    bodyLimit: 64 * 1024,
    trustProxy: config.trustProxy as boolean | string, // a number (hops) is accepted too
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  });
  app.addSchema(Problem);
  installValidators(app, [Problem]);
  installProblemHandlers(app, config.errorsUrl);
  await registerOpenApi(app, config.baseUrl);

  await app.register(requestContext);
  await app.register(auth, { keys, clock });
  await app.register(access);

  await app.register(openApiRoute);
  await app.register(resourceRoutes, { db: deps.storage.db });
  app.addHook('onClose', async () => keys.stop());
  return { app, keys };
}
