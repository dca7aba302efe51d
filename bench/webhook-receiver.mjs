import { createServer } from 'node:http';

/**
 * The local webhook receiver of `npm run bench -- --webhook` (scenario `create_webhook`):
 * reads each delivery's body and answers 204 at once, verifying nothing, so the API's worker
 * finds a receiver that keeps up and the scenario measures what an enabled endpoint costs the
 * writes. A process of its own, so its work is not the bench's load generator's.
 */
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(204);
    res.end();
  });
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
