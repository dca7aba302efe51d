import { runCliProcess } from '../helpers/server-process.ts';
import type { TestStorage } from '../helpers/storage.ts';

/** `node bin/venue-api.js …` against a test storage, as an operator runs it. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json(): any;
}

export async function cli(storage: TestStorage, ...args: string[]): Promise<CliRun> {
  const res = await runCliProcess(args, { DATABASE_URL: storage.url }, 60_000);
  return { ...res, json: () => JSON.parse(res.stdout) };
}

/** A failure is exit code 1 and exactly one line on stderr, nothing on stdout. */
export function failedWith(run: CliRun): string {
  if (run.code !== 1) throw new Error(`expected exit code 1, got ${run.code}: ${run.stdout}${run.stderr}`);
  const lines = run.stderr.trim().split('\n');
  if (lines.length !== 1) throw new Error(`expected one line on stderr, got:\n${run.stderr}`);
  return lines[0]!;
}
