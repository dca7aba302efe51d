import Fastify from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { adultCutoff, PG_ONE } from './customer-sql.mjs';

/**
 * Ceiling `bare_fastify_pg_limits` for `npm run bench -- --database postgres` with REDIS_URL:
 * bare_fastify_pg's GET /customers/:id behind the one Redis round trip a shared rate limit
 * costs, so get_one with its limits in Redis is set against a floor that pays for them too.
 * Per request: one EVALSHA of a script adding one to three counters of the workspace (this
 * second, this minute, today), each with its expiry (ioredis, default options; defineCommand
 * loads the script once and sends EVALSHA after), then bare_fastify_pg's named statement on
 * a pg pool of the API's size (POOL_SIZE) over the same database (DATABASE_URL, WORKSPACE_ID).
 * No auth, validation or mapping, and no refusal: the counts are only kept.
 */
const COUNT = `
local counts = {}
for i = 1, #KEYS do
  counts[i] = redis.call('INCR', KEYS[i])
  redis.call('PEXPIRE', KEYS[i], ARGV[i])
end
return counts`;
const WINDOWS_MS = [1_000, 60_000, 86_400_000];

const redis = new Redis(process.env.REDIS_URL);
redis.defineCommand('countRequest', { numberOfKeys: WINDOWS_MS.length, lua: COUNT });
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });
const workspaceId = process.env.WORKSPACE_ID;
const json = 'application/json; charset=utf-8';

const app = Fastify({ logger: false });
app.get('/customers/:id', async (req, reply) => {
  const now = Date.now();
  // A key per window and workspace, named for the window it counts: a new window, a new count.
  const keys = WINDOWS_MS.map((ms) => `bench-floor:${workspaceId}:${ms}:${Math.floor(now / ms)}`);
  await redis.countRequest(...keys, ...WINDOWS_MS);
  const { rows } = await pool.query({ ...PG_ONE, values: [adultCutoff(), workspaceId, req.params.id] });
  if (rows.length === 0) return reply.code(404).type(json).send('{"error":"not found"}');
  return reply.type(json).send(rows[0].record);
});
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
const { port } = app.server.address();
process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
process.once(
  'SIGTERM',
  () => void app.close().then(() => Promise.all([pool.end(), redis.quit()]).then(() => process.exit(0))),
);
