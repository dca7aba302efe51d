import { createServer } from 'node:http';

/**
 * The local trace collector of `npm run bench -- --tracing RATIO`: takes OTLP/HTTP JSON exports
 * (POST /v1/traces, what the API's exporter sends) and counts their spans, so the run reports
 * what tracing shipped; GET /stats answers the counts. A process of its own, like a collector.
 */
let exports = 0;
let spans = 0;
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ exports, spans }));
      return;
    }
    exports++;
    try {
      for (const resource of JSON.parse(Buffer.concat(chunks).toString('utf8')).resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
    } catch {}
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`listening at http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
