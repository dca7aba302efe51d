import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import * as r from '../import/records.ts';
import { cli, failedWith } from './cli.ts';

describe.each(ENGINES)('venue-api import on %s', (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  let dir: string;
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, Date.now, { name: 'Imported' })).id;
    dir = mkdtempSync(join(tmpdir(), 'venue-cli-import-'));
  });
  afterAll(async () => {
    await storage?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a good file: exit code 0 and counts per object', async () => {
    const v = r.venue();
    const file = write('good.ndjson', r.ndjson([v, r.tag(), r.customer({ email: 'ok@example.com' })]));
    const run = await cli(storage, 'import', '--workspace', workspaceId, file, '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ lines: 3, imported: { venue: 1, tag: 1, customer: 1 }, bad_lines: [] });
    const row = await storage.db
      .selectFrom('venues')
      .select('workspace_id')
      .where('id', '=', v.id as string)
      .executeTakeFirstOrThrow();
    expect(row.workspace_id).toBe(workspaceId);
  });

  it('reports bad lines with their numbers and exits 1, still importing the good ones', async () => {
    const file = write(
      'mixed.ndjson',
      r.ndjson([
        r.tag({ name: 'Fine' }),
        '[1,2]',
        r.booking(r.venue().id as string, r.customer().id as string, r.activity('ven_x').id as string),
      ]),
    );
    const run = await cli(storage, 'import', '--workspace', workspaceId, file, '--json');
    expect(run.code).toBe(1);
    const report = run.json();
    expect(report.imported).toEqual({ tag: 1 });
    expect(report.bad_lines.map((b: { line: number }) => b.line)).toEqual([2, 3]);
    expect(report.bad_lines[1].errors.join(' ')).toMatch(/venue ven_\w+ is not a venue of this workspace/);
    const human = await cli(storage, 'import', '--workspace', workspaceId, file);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(
      /^Imported 1 of 3 lines from .*: 1 tag\.\n2 bad line\(s\), nothing of them written:\n {2}line 2: must be one JSON object\n {2}line 3 \(booking bkg_\w+\): /,
    );
  });

  it('fails with one line for a missing file or workspace', async () => {
    expect(failedWith(await cli(storage, 'import', '--workspace', workspaceId, join(dir, 'nope.ndjson')))).toMatch(
      /cannot read .*nope\.ndjson: no such file/,
    );
    expect(
      failedWith(await cli(storage, 'import', '--workspace', 'wsp_0000000000000000000000', write('x.ndjson', ''))),
    ).toMatch(/no workspace/);
    expect(failedWith(await cli(storage, 'import', '--workspace', workspaceId))).toMatch(
      /missing required argument 'file'/,
    );
  });
});
