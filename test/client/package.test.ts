import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_INSTALL, guides } from '../../src/http/guides.ts';

/**
 * venue-api-client outside the repository, installed as /docs and its README say: the
 * tarball `npm pack` writes, installed into a project of its own, whose TypeScript finds the
 * types under every module resolution a project may use.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT = join(ROOT, 'clients', 'typescript');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8')) as { name: string; version: string };

const npm = (cwd: string, ...args: string[]) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });

// Types checked, not declared `any`: were the import unresolved, the directive would be unused (TS2578).
const PROGRAM = `import { type Customer, VenueClient, type WebhookEvent } from 'venue-api-client';
// @ts-expect-error apiKey is a string
new VenueClient({ apiKey: 1, baseUrl: 'http://127.0.0.1:8080' });
export const venue = new VenueClient({ apiKey: 'vw_test_x', baseUrl: 'http://127.0.0.1:8080' });
export const first = (c: Customer): string => c.first_name;
// The generated webhook event types narrow on \`type\`.
export const gone = (e: WebhookEvent): string | null => (e.type === 'customer.deleted' ? e.data.object.id : null);
`;

describe('venue-api-client installed from its tarball', { timeout: 120_000 }, () => {
  let dir: string;
  let tarball: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'venue-client-package-'));
    // vitest's globalSetup built dist/ already (the `npm run build` of the docs); packing
    // without its prepack leaves dist/ alone for the other test files reading it meanwhile.
    const packed = JSON.parse(npm(CLIENT, 'pack', '--ignore-scripts', '--json', '--pack-destination', dir)) as [
      { filename: string },
    ];
    tarball = packed[0].filename;
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'project', private: true, type: 'module' }));
    npm(dir, 'install', join(dir, tarball));
    writeFileSync(join(dir, 'index.ts'), PROGRAM);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the file the install line of /docs and of its README names', () => {
    expect(tarball).toBe(`${pkg.name}-${pkg.version}.tgz`);
    expect(CLIENT_INSTALL).toBe(`npm install /path/to/venue-api/clients/typescript/${tarball}`);
    expect(guides('')).toContain('cd clients/typescript && npm run build && npm pack\n');
    expect(guides('')).toContain(CLIENT_INSTALL);
    const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
    expect(readme).toContain('cd clients/typescript && npm run build && npm pack\n');
    expect(readme).toContain(CLIENT_INSTALL);
  });

  it.each([
    ['node', 'esnext'],
    ['bundler', 'esnext'],
    ['nodenext', 'nodenext'],
  ])('compiles a project importing it under "moduleResolution": "%s"', (moduleResolution, module) => {
    const compilerOptions = { module, moduleResolution, target: 'es2022', strict: true, noEmit: true, types: [] };
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...compilerOptions, lib: ['es2022', 'dom'] }, files: ['index.ts'] }),
    );
    const tsc = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('loads in Node from the installed package', () => {
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('venue-api-client'); console.log(typeof m.VenueClient)"],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(out.trim()).toBe('function');
  });
});
