import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The slim deployment of docs/operations.md "Build and deploy", as an operator does it: the
 * repository's files in a new directory, `npm ci` (which builds), `npm prune --omit=dev`, then
 * every kind of command through `npx venue-api`, the server stopped by SIGTERM. Slow (a whole
 * install), so one test.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The environment of a shell: none of vitest's or npm's own variables (NODE_ENV=production would make npm ci skip the build tools). */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && !k.startsWith('VITEST') && k !== 'BASE_URL'),
  );
  return { ...env, ...extra };
}

describe('a slim install (npm ci, then npm prune --omit=dev)', { timeout: 900_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-slim-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    // npx's own link to this directory, in its cache under a digest of the directory's path.
    const cache = process.env.npm_config_cache ?? join(homedir(), '.npm');
    const digest = createHash('sha512').update(dir).digest('hex').slice(0, 16);
    rmSync(join(cache, '_npx', digest), { recursive: true, force: true });
  }, 300_000);

  it('runs the CLI from what is left: help, migrate, a workspace, and serve until SIGTERM', async () => {
    // What a checkout holds: tracked files and new ones not ignored (never node_modules or dist).
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f) => f !== '' && f !== 'node_modules' && !f.startsWith('node_modules/'));
    for (const file of files) {
      mkdirSync(join(dir, dirname(file)), { recursive: true });
      cpSync(join(ROOT, file), join(dir, file));
    }
    const env = shellEnv({ DATABASE_URL: join(dir, 'data', 'slim.sqlite'), DEMO: 'off' });
    const npm = (args: string[]) =>
      execFileSync('npm', args, { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    npm(['ci', '--prefer-offline', '--no-audit', '--no-fund']);
    npm(['prune', '--omit=dev', '--no-audit', '--no-fund']);
    // /docs' browser bundle came with the build (dist/bundle/scalar/): its package is a development one.
    const left = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: dir, env, encoding: 'utf8' });
    expect(left).not.toMatch(/@scalar\//);
    expect(existsSync(join(dir, 'node_modules', '@scalar', 'api-reference'))).toBe(false);
    const size = execFileSync('du', ['-sm', join(dir, 'node_modules')], { encoding: 'utf8' }).split('\t')[0];
    console.log(`slim install: node_modules ${size} MB after npm prune --omit=dev`);
    // Only what the bundle loads from node_modules is left (test/architecture/dependencies.test.ts).
    expect(Number(size)).toBeLessThan(150);

    // npx links the package into its own cache and runs its `prepare` there, which after the
    // prune must keep dist/ rather than build (scripts/prepare.mjs).
    const cli = (args: string[]) =>
      execFileSync('npx', ['venue-api', ...args], {
        cwd: dir,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    expect(cli(['--help'])).toMatch(/Usage: venue-api/);
    expect(JSON.parse(cli(['migrate', '--json']))).toMatchObject({ reverted: [], unknown: [] });
    const ws = JSON.parse(cli(['workspace', 'create', '--name', 'Slim', '--json']));
    expect(ws.id).toMatch(/^wsp_/);

    const child = spawn('npx', ['venue-api', 'serve', '--port', '0', '--host', '127.0.0.1'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      let url: string | undefined;
      while (!url && Date.now() < deadline) {
        url = /Venue API listening at (http:\/\/\S+)/.exec(out)?.[1];
        if (!url) await new Promise((r) => setTimeout(r, 100));
      }
      expect(url, out).toBeDefined();
      expect((await fetch(`${url}/ready`)).status).toBe(200);
      const asset = /\/docs\/assets\/scalar-[\w.-]+\.js/.exec(await (await fetch(`${url}/docs`)).text())?.[0];
      expect(asset).toBeDefined();
      expect((await fetch(`${url}${asset}`)).status).toBe(200);
      const { pid } = (await (await fetch(`${url}/health`)).json()) as { pid: number };
      // SIGTERM to the server itself, as a process manager sends it; npx answers with its exit.
      process.kill(pid, 'SIGTERM');
    } catch (err) {
      process.kill(-child.pid!, 'SIGKILL');
      throw err;
    }
    expect(await exited, out).toBe(0);
  });
});
