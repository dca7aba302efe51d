import Fastify from 'fastify';

/**
 * The cold-start baseline for `npm run bench:start`: Fastify 5 alone, one GET /ready route,
 * no plugins, database or logging. Plain JavaScript, so nothing is transpiled on its way in.
 */
const app = Fastify({ logger: false });
app.get('/ready', async () => ({ status: 'ready' }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
