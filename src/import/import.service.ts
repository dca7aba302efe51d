import type { DocTable } from '../db/doc-rows.ts';
import type { Storage } from '../db/index.ts';
import type { PipelineWriter } from '../resources/writes/write.pipeline.ts';
import { jsonDepthOver, MAX_JSON_DEPTH } from '../lib/json-depth.ts';
import { systemClock, type Clock } from '../lib/time.ts';
import type { Customer } from '../resources/customers/customer.schema.ts';
import { getWorkspace } from '../resources/workspaces/workspace.service.ts';
import { loadEmails, loadExisting, type ExistingRow } from './existing.repo.ts';
import { judge, TARGET_TABLE, type BadLine, type LineInfo } from './judge.ts';
import { numbered, type LineSource } from './reader.ts';
import { OBJECT_NAMES, RECORD_KINDS, type ObjectName, type TableName } from './record-kinds.ts';
import { recordProblems, referencesOf } from './references.ts';
import { schemaErrors } from './validate.ts';
import { writeCustomers, writeDocs, writeVocabulary } from './import.repo.ts';
import { recordImportEvents } from './record-events.ts';

/**
 * `venue-api import`: NDJSON records in the API's own shapes (DECISIONS "Operator CLI").
 * Pass one checks every line (schema, rules, references, ownership) and keeps only ids
 * and references in memory; pass two reads the file again and upserts the good lines in
 * batches, one transaction each. A bad line writes nothing of itself.
 */
export interface ImportReport {
  lines: number;
  imported: Partial<Record<ObjectName, number>>;
  bad_lines: BadLine[];
}

// biome-ignore lint/suspicious/noExplicitAny: a record the import's schema check has already validated
type Rec = Record<string, any>;
type Parsed = { ok: true; object: ObjectName; record: Rec } | { ok: false; bad: BadLine };

/**
 * Good lines written per transaction: on SQLite the write lock is held while a batch is
 * written, and a server on the same file waits for it, so batches stay small.
 */
const BATCH = 200;

function parseLine(line: number, text: string): Parsed {
  // The same bound as request bodies: nothing below recurses into deeper nesting.
  if (jsonDepthOver(text)) {
    return {
      ok: false,
      bad: { line, object: null, id: null, errors: [`nests objects and arrays more than ${MAX_JSON_DEPTH} deep`] },
    };
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      bad: { line, object: null, id: null, errors: [`is not valid JSON (${(e as Error).message})`] },
    };
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    return { ok: false, bad: { line, object: null, id: null, errors: ['must be one JSON object'] } };
  }
  const r = record as Rec;
  const id = typeof r.id === 'string' ? r.id : null;
  if (!OBJECT_NAMES.includes(r.object)) {
    const got = typeof r.object === 'string' ? `"${r.object}"` : 'missing';
    return {
      ok: false,
      bad: { line, object: null, id, errors: [`object must be one of ${OBJECT_NAMES.join(', ')} (${got})`] },
    };
  }
  const object = r.object as ObjectName;
  const errors = schemaErrors(object, r);
  if (errors.length === 0) errors.push(...recordProblems(object, r));
  return errors.length ? { ok: false, bad: { line, object, id, errors } } : { ok: true, object, record: r };
}

function lineInfo(line: number, object: ObjectName, r: Rec): LineInfo {
  return {
    line,
    object,
    id: r.id,
    livemode: RECORD_KINDS[object].mode === 'mode' ? r.livemode : null,
    refs: referencesOf(object, r),
    email: object === 'customer' ? r.email : null,
    dates: object === 'event' ? new Set(r.dates.map((d: Rec) => d.id)) : null,
  };
}

async function checkLines(source: LineSource) {
  const candidates: LineInfo[] = [];
  const bad: BadLine[] = [];
  const firstLine = new Map<string, number>();
  let lines = 0;
  for await (const { line, text } of numbered(source)) {
    lines++;
    const parsed = parseLine(line, text);
    if (!parsed.ok) {
      bad.push(parsed.bad);
      continue;
    }
    const id = parsed.record.id as string;
    const earlier = firstLine.get(id);
    if (earlier !== undefined) {
      bad.push({ line, object: parsed.object, id, errors: [`${id} is already on line ${earlier}`] });
      continue;
    }
    firstLine.set(id, line);
    candidates.push(lineInfo(line, parsed.object, parsed.record));
  }
  return { lines, candidates, bad };
}

async function existingFor(storage: Storage, candidates: LineInfo[]) {
  const wanted = new Map<TableName, Set<string>>(Object.values(RECORD_KINDS).map((k) => [k.table, new Set<string>()]));
  for (const c of candidates) {
    wanted.get(RECORD_KINDS[c.object].table)!.add(c.id);
    for (const ref of c.refs) {
      if (ref.target === 'event_date') {
        if (ref.event) wanted.get('events')!.add(ref.event);
      } else wanted.get(TARGET_TABLE[ref.target])!.add(ref.id);
    }
  }
  const existing = {} as Record<TableName, Map<string, ExistingRow>>;
  for (const [table, ids] of wanted) existing[table] = await loadExisting(storage.db, table, ids);
  return existing;
}

async function writeBatch(
  storage: Storage & PipelineWriter,
  workspaceId: string,
  batch: Map<TableName, Rec[]>,
  clock: Clock,
  existing: Record<TableName, Map<string, ExistingRow>>,
) {
  const { engine } = storage;
  await storage.write(async (tx) => {
    for (const [table, records] of batch) {
      if (records.length === 0) continue;
      if (table === 'customers')
        await writeCustomers(tx, storage.writes, engine, workspaceId, records as Customer[], clock());
      else if (table === 'tags' || table === 'lists') await writeVocabulary(tx, engine, table, workspaceId, records);
      else await writeDocs(tx, engine, table as DocTable, workspaceId, records);
      // Customers' events come from the write pipeline (customer-log.ts), like every customer writer's.
      if (table !== 'customers') {
        const object = OBJECT_NAMES.find((o) => RECORD_KINDS[o].table === table)!;
        await recordImportEvents(tx, engine, workspaceId, object, records, (id) => existing[table].has(id), clock());
      }
    }
  });
  storage.writes.committed();
}

export async function importRecords(
  storage: Storage & PipelineWriter,
  input: { workspaceId: string; source: LineSource; clock?: Clock },
): Promise<ImportReport> {
  const clock = input.clock ?? systemClock;
  const { id: workspaceId } = await getWorkspace(storage.db, input.workspaceId);
  const checked = await checkLines(input.source);
  const existing = await existingFor(storage, checked.candidates);
  const emails = checked.candidates.flatMap((c) => (c.email ? [c.email] : []));
  const emailOwners = await loadEmails(storage.db, workspaceId, emails);
  const { good, bad } = judge(checked.candidates, { workspaceId, existing, emailOwners });

  const goodLines = new Set(good.map((g) => g.line));
  const imported: Partial<Record<ObjectName, number>> = {};
  let batch = new Map<TableName, Rec[]>();
  let pending = 0;
  for await (const { line, text } of numbered(input.source)) {
    if (!goodLines.has(line)) continue;
    const parsed = parseLine(line, text);
    // The file changed between the two readings: nothing of this line is written.
    if (!parsed.ok) throw new Error(`line ${line} changed while it was being imported`);
    const table = RECORD_KINDS[parsed.object].table;
    const records = batch.get(table) ?? [];
    records.push(parsed.record);
    batch.set(table, records);
    imported[parsed.object] = (imported[parsed.object] ?? 0) + 1;
    if (++pending >= BATCH) {
      await writeBatch(storage, workspaceId, batch, clock, existing);
      batch = new Map();
      pending = 0;
    }
  }
  if (pending > 0) await writeBatch(storage, workspaceId, batch, clock, existing);
  // A bulk load changes the tables' shape: give the planner fresh statistics now.
  if (good.length > 0) await storage.engine.refreshStatistics(storage.db);
  return {
    lines: checked.lines,
    imported,
    bad_lines: [...checked.bad, ...bad].sort((a, b) => a.line - b.line),
  };
}
