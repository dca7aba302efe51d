import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { invalid } from '../errors.ts';

/** An NDJSON source that can be read more than once (the importer reads it twice). */
export type LineSource = () => AsyncIterable<string>;

export async function fileSource(path: string): Promise<LineSource> {
  try {
    await access(path);
  } catch {
    throw invalid(`cannot read ${path}: no such file`);
  }
  return () => createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
}

export function memorySource(text: string): LineSource {
  return async function* () {
    yield* text.split(/\r?\n/);
  };
}

/** Each non-blank line with its 1-based number, as people count lines in an editor. */
export async function* numbered(source: LineSource): AsyncIterable<{ line: number; text: string }> {
  let line = 0;
  for await (const text of source()) {
    line++;
    if (text.trim() !== '') yield { line, text };
  }
}
