import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cliJson } from '../helpers/server-process.ts';
import { emptyPostgres } from '../helpers/storage.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
// No start-up files: a shell profile written for people (set -u trips on its PS1) has no place here.
const sh = (script: string, timeout = 900_000) =>
  exec('bash', ['--noprofile', '--norc', '-euo', 'pipefail', '-c', script], {
    cwd: ROOT,
    timeout,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, BASH_ENV: '' },
  });

const BASE = 'localhost/venue-api-test-base';
const IMAGE = 'localhost/venue-api-test';

/**
 * docs/operations.md "Container image": the Dockerfile builds with podman, and the image's own
 * command, run in its file system as its user with its environment, serves /ready and a keyed
 * request. No registry is reachable here, so the base is a minimal Debian (debootstrap, from
 * the Debian mirror the machine uses) with the machine's own Node and npm in it; containers
 * cannot be started here, so the image is mounted and its command run with chroot.
 */
describe('the container image', { timeout: 1_500_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-image-'));
  let mounted: string | null = null;
  afterAll(async () => {
    if (mounted) await sh(`podman image unmount ${IMAGE} || true`);
    // The build stage's image is left untagged (dangling) by every build: pruned with them.
    await sh(`podman rmi -f ${IMAGE} ${BASE} >/dev/null 2>&1 || true; podman image prune -f >/dev/null 2>&1 || true`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds from the Dockerfile, and its command serves /ready and an authenticated request', async () => {
    const root = join(dir, 'root');
    // A base as the official slim image is: Debian with Node and npm, and no compiler, which the
    // Dockerfile adds itself. Laid out and configured as on this machine (npm's nodedir), so
    // node-gyp reads this Node's headers rather than download them from nodejs.org, which is out
    // of reach; and this machine's CA certificates, which its way to the npm registry needs.
    await sh(`
      debootstrap --variant=minbase --include=ca-certificates bookworm ${root} http://deb.debian.org/debian >/dev/null
      cp /usr/bin/node ${root}/usr/bin/node
      mkdir -p ${root}/usr/lib/node_modules ${root}/usr/include
      cp -r /usr/lib/node_modules/npm ${root}/usr/lib/node_modules/npm
      cp -r /usr/include/node ${root}/usr/include/node
      ln -s ../lib/node_modules/npm/bin/npm-cli.js ${root}/usr/bin/npm
      ln -s ../lib/node_modules/npm/bin/npx-cli.js ${root}/usr/bin/npx
      cp /etc/ssl/certs/ca-certificates.crt ${root}/etc/ssl/certs/ca-certificates.crt
      mkdir -p ${root}/usr/etc && printf 'nodedir=/usr\\ncafile=/etc/ssl/certs/ca-certificates.crt\\n' > ${root}/usr/etc/npmrc
      tar -C ${root} -c . | podman import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - ${BASE} >/dev/null
    `).catch((err: Error) => {
      throw new Error(
        `assembling the base failed (podman and debootstrap: bash scripts/ensure-tools.sh): ${err.message}`,
      );
    });
    await sh(
      `podman build --isolation chroot --format docker --build-arg NODE_IMAGE=${BASE} --build-arg COMMIT=imagetest -t ${IMAGE} . >${dir}/build.log 2>&1 || { tail -50 ${dir}/build.log >&2; exit 1; }`,
    );
    const config = JSON.parse((await sh(`podman image inspect --format '{{json .Config}}' ${IMAGE}`)).stdout) as {
      User: string;
      Env: string[];
      Cmd: string[];
      WorkingDir: string;
    };
    expect(config.User).toBe('10001:10001');
    const health = JSON.parse((await sh(`podman image inspect --format '{{json .HealthCheck}}' ${IMAGE}`)).stdout) as {
      Test: string[];
    };
    expect(health.Test.join(' ')).toMatch(/\/ready/);
    expect(config.Env).toContain('DEMO=off');
    mounted = (await sh(`podman image mount ${IMAGE}`)).stdout.trim();
    // Only what the server runs: no sources, no tests, no build tools, no @scalar package.
    for (const absent of ['src', 'test', 'node_modules/typescript', 'node_modules/esbuild']) {
      expect(existsSync(join(mounted, config.WorkingDir, absent)), absent).toBe(false);
    }
    const scalar = join(mounted, config.WorkingDir, 'node_modules/@scalar');
    expect(existsSync(scalar) ? readdirSync(scalar) : []).toEqual([]);

    const db = await emptyPostgres();
    try {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      const env = [...config.Env, `DATABASE_URL=${db.url}`, 'REDIS_URL=redis://127.0.0.1:6379', `PORT=${port}`];
      const server = spawn(
        'chroot',
        [
          '--userspec',
          config.User,
          mounted,
          'env',
          '-i',
          ...env,
          'sh',
          '-c',
          `cd ${config.WorkingDir} && exec "$@"`,
          'sh',
          ...config.Cmd,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      server.stdout.on('data', (c: Buffer) => (output += c.toString()));
      server.stderr.on('data', (c: Buffer) => (output += c.toString()));
      try {
        const url = `http://127.0.0.1:${port}`;
        const deadline = Date.now() + 60_000;
        for (;;) {
          const ready = await fetch(`${url}/ready`).catch(() => null);
          if (ready?.status === 200) break;
          if (Date.now() > deadline || server.exitCode !== null)
            throw new Error(`the image's server never got ready:\n${output}`);
          await new Promise((r) => setTimeout(r, 250));
        }
        const cli = (...args: string[]) => cliJson({ DATABASE_URL: db.url }, ...args);
        const ws = await cli('workspace', 'create', '--name', 'Imaged');
        const key = await cli(...`keys create --workspace ${ws.id} --name k --mode live --access read`.split(' '));
        const res = await fetch(`${url}/key`, { headers: { authorization: `Bearer ${key.secret}` } });
        expect(res.status, output).toBe(200);
        expect(((await res.json()) as { id: string }).id).toBe(key.id);
        const metrics = await (await fetch(`${url}/metrics`)).text();
        expect(metrics).toMatch(/venue_api_build_info\{version="[^"]+",commit="imagetest"\} 1/);
      } finally {
        server.kill('SIGTERM');
      }
    } finally {
      await db.drop();
    }
  });
});
