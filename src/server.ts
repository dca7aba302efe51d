import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { migrate, openStorage } from './db/index.ts';

/** Process entry: read config, open storage, listen, close gracefully on a signal. */
export async function serve(overrides: { port?: number; host?: string } = {}): Promise<void> {
  const config = { ...loadConfig(), ...overrides };
  const storage = openStorage(config.databaseUrl);
  await migrate(storage);
  const { app, keys } = await buildApp(config, { storage });
  keys.start();
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'closing: finishing in-flight requests');
    await app.close();
    await storage.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
