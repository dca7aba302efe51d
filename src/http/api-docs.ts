import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '../errors.ts';

/**
 * GET /docs: the API reference, Scalar's standalone browser bundle rendering the served
 * /openapi.json. The bundle is served by this process (no CDN: the page works offline and
 * behind a firewall), read on the first request only so a cold start does not pay for 4 MB
 * it may never send.
 */
const gzip = promisify(gzipCallback);
const SCALAR_PACKAGE = '@scalar/api-reference';

interface Bundle {
  /** `scalar-<version>.js`: the version is in the URL, so browsers may keep it for good. */
  file: string;
  plain: Buffer;
  gzipped: Buffer;
}

/**
 * The build copies Scalar's browser bundle beside the server's (scripts/bundle.mjs: `scalar/`),
 * so a production install needs no @scalar package; code run from src/ (the tests) reads it
 * from node_modules, where the development dependency is.
 */
async function readBundle(): Promise<Bundle> {
  const copied = fileURLToPath(new URL('./scalar/', import.meta.url));
  const found = await readdir(copied).catch(() => [] as string[]);
  const name = found.find((f) => /^scalar-[\w.-]+\.js$/.test(f));
  if (name) return bundleOf(name, await readFile(join(copied, name)));
  const entry = createRequire(import.meta.url).resolve(SCALAR_PACKAGE); // <pkg>/dist/index.js
  const root = dirname(dirname(entry));
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
  return bundleOf(`scalar-${version}.js`, await readFile(join(root, 'dist', 'browser', 'standalone.js')));
}

async function bundleOf(file: string, plain: Buffer): Promise<Bundle> {
  return { file, plain, gzipped: await gzip(plain, { level: 9 }) };
}

/** Loaded on the first request, then kept; a failed read is tried again by the next one. */
let bundle: Promise<Bundle> | null = null;
function loadBundle(): Promise<Bundle> {
  if (!bundle) {
    bundle = readBundle();
    bundle.catch(() => {
      bundle = null;
    });
  }
  return bundle;
}

/**
 * Configured through the element's data attributes: this Scalar version applies options given
 * to `createApiReference()` only after it has injected its theme, whose default fonts come
 * from Scalar's font CDN; the attributes are read first. Scripts are external files only, so
 * the CSP needs no 'unsafe-inline' for scripts.
 */
const CONFIGURATION = {
  // The system's fonts: the default ones would be fetched from Scalar's CDN.
  withDefaultFonts: false,
  // No Scalar cloud features: no proxy for "try it", no telemetry, no AI or MCP buttons.
  proxyUrl: '',
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  defaultOpenAllTags: true,
  documentDownloadType: 'json',
};
const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const page = (asset: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Venue Workspace REST API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<script id="api-reference" type="application/json" data-url="/openapi.json" data-configuration="${attribute(JSON.stringify(CONFIGURATION))}"></script>
<script src="/docs/assets/${asset}"></script>
</body>
</html>
`;

const staticReply = (reply: FastifyReply, type: string, body: string | Buffer, cache: string) =>
  reply.type(type).header('Cache-Control', cache).send(body);

export async function apiDocsRoutes(app: FastifyInstance) {
  // Inside this plugin's scope only: the JSON API needs none of these headers, and
  // /docs/errors sets its own. As strict as Scalar allows: its styles are injected at run
  // time (style elements and attributes), so style-src needs 'unsafe-inline'; nothing else
  // leaves the server.
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        workerSrc: ["'self'", 'blob:'],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    },
    crossOriginEmbedderPolicy: false,
    hsts: false,
  });
  const publicRoute = { config: { access: { kind: 'public' as const } }, schema: { hide: true } };

  app.get('/docs', publicRoute, async (_request, reply) =>
    staticReply(reply, 'text/html; charset=utf-8', page((await loadBundle()).file), 'public, max-age=300'),
  );
  app.get<{ Params: { file: string } }>('/docs/assets/:file', publicRoute, async (request, reply) => {
    const { file, plain, gzipped } = await loadBundle();
    if (request.params.file !== file) throw notFound('No such asset; /docs names the current one.');
    reply.header('Vary', 'Accept-Encoding');
    const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    if (acceptsGzip) reply.header('Content-Encoding', 'gzip');
    return staticReply(
      reply,
      'text/javascript; charset=utf-8',
      acceptsGzip ? gzipped : plain,
      'public, max-age=31536000, immutable',
    );
  });
}
