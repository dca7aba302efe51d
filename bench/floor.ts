import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * The baseline: the same framework answering a fixed body of the same size, with no
 * auth, limits, database or serialisation. Our endpoints are reported as ratios of it,
 * so the figures mean the same on a fast machine and a slow one.
 */
const body = readFileSync(process.env.BODY_FILE!, 'utf8');
const app = Fastify({ logger: false });
app.get('/floor', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
