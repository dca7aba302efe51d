import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

/**
 * Ceiling `raw_node_http` for `npm run bench`'s get_one: `node:http` alone answering, to
 * every request, the bytes of BODY_FILE (one customer as the API's GET /customers/{id}
 * sent it). No framework, routing, database or serialisation: as fast as Node answers.
 */
const body = readFileSync(process.env.BODY_FILE);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
