import type { ExistingRow } from './existing.repo.ts';
import { RECORD_KINDS, type ObjectName, type TableName } from './record-kinds.ts';
import type { Ref, Target } from './references.ts';

/**
 * Decides which lines of a file may be written, after each has passed its schema:
 * an id of another workspace, a change of mode, a reference to nothing (or to the
 * other mode), or an email another customer holds makes a line bad. Lines are judged
 * tier by tier, so a reference to a bad line of the same file counts as missing.
 */
export interface LineInfo {
  line: number;
  object: ObjectName;
  id: string;
  livemode: boolean | null;
  refs: Ref[];
  email: string | null;
  /** An event's date ids. */
  dates: Set<string> | null;
}

export interface BadLine {
  line: number;
  object: string | null;
  id: string | null;
  errors: string[];
}

export interface JudgeContext {
  workspaceId: string;
  existing: Record<TableName, Map<string, ExistingRow>>;
  /** `${livemode}:${email}` -> the customer holding it now. */
  emailOwners: Map<string, string>;
}

/** The table behind each kind of reference (event dates live inside their event). */
export const TARGET_TABLE: Record<Exclude<Target, 'event_date'>, TableName> = {
  venue: 'venues',
  tag: 'tags',
  list: 'lists',
  activity: 'activities',
  package: 'packages',
  event: 'events',
  customer: 'customers',
  booking: 'bookings',
  order: 'orders',
};

interface Known {
  livemode: boolean | null;
  dates: Set<string> | null;
}

const modeWord = (livemode: boolean | null) => (livemode ? 'live' : 'test');

export function judge(candidates: LineInfo[], ctx: JudgeContext): { good: LineInfo[]; bad: BadLine[] } {
  const accepted = new Map<string, Known>();
  const emails = new Map<string, LineInfo>();
  const good: LineInfo[] = [];
  const bad: BadLine[] = [];

  const lookup = (target: Exclude<Target, 'event_date'>, id: string): Known | null => {
    const inFile = accepted.get(id);
    if (inFile) return inFile;
    const row = ctx.existing[TARGET_TABLE[target]].get(id);
    return row && row.workspaceId === ctx.workspaceId && !row.deleted ? row : null;
  };

  const refProblem = (info: LineInfo, ref: Ref): string | null => {
    if (ref.target === 'event_date') {
      const event = ref.event ? lookup('event', ref.event) : null;
      return event?.dates?.has(ref.id) ? null : `${ref.field} ${ref.id} is not a date of event ${ref.event}`;
    }
    const found = lookup(ref.target, ref.id);
    if (!found)
      return `${ref.field} ${ref.id} is not a ${ref.target.replace('_', ' ')} of this workspace or of this file`;
    if (ref.livemode !== undefined && found.livemode !== ref.livemode) {
      return `${ref.field} ${ref.id} is a ${modeWord(found.livemode)} ${ref.target}; a ${modeWord(ref.livemode)} ${info.object} may only name ${modeWord(ref.livemode)} ones`;
    }
    return null;
  };

  const ownProblems = (info: LineInfo): string[] => {
    const kind = RECORD_KINDS[info.object];
    const row = ctx.existing[kind.table].get(info.id);
    if (row && row.workspaceId !== ctx.workspaceId) return [`${info.id} belongs to another workspace`];
    if (row && kind.mode === 'mode' && row.livemode !== info.livemode) {
      return [`${info.id} is stored as ${modeWord(row.livemode)} data; an import cannot change its mode`];
    }
    const problems = info.refs.map((ref) => refProblem(info, ref)).filter((p): p is string => p !== null);
    const owner = info.email === null ? undefined : ctx.emailOwners.get(`${info.livemode}:${info.email}`);
    if (owner && owner !== info.id) problems.push(`email ${info.email} belongs to customer ${owner}`);
    return problems;
  };

  const tiers = [...new Set(candidates.map((c) => RECORD_KINDS[c.object].tier))].sort((a, b) => a - b);
  for (const tier of tiers) {
    // Judge the whole tier before accepting any of it: no reference within a tier.
    const verdicts = candidates
      .filter((c) => RECORD_KINDS[c.object].tier === tier)
      .map((info) => ({ info, problems: ownProblems(info) }));
    for (const { info, problems } of verdicts) {
      // One customer per email and mode (DECISIONS "Customers"): the first line keeps it.
      const sameEmail = info.email === null ? undefined : emails.get(`${info.livemode}:${info.email}`);
      if (sameEmail) problems.push(`email ${info.email} is already on line ${sameEmail.line}`);
      if (problems.length) {
        bad.push({ line: info.line, object: info.object, id: info.id, errors: problems });
        continue;
      }
      if (info.email !== null) emails.set(`${info.livemode}:${info.email}`, info);
      accepted.set(info.id, { livemode: info.livemode, dates: info.dates });
      good.push(info);
    }
  }
  return { good, bad };
}
