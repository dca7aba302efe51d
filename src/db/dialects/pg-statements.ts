import { createHash } from 'node:crypto';

/** How many named statements a connection keeps, as SQLite's statement cache (dialects/sqlite.ts). */
export const PREPARED_PER_CONNECTION = 500;

/**
 * Longer statements go unnamed: a bulk INSERT of thousands of rows (seed, import) is a
 * one-off whose prepared form would hold the connection's memory for nothing.
 */
export const PREPARED_MAX_CHARS = 32_768;

/** The name a statement's text is prepared under: the same text, the same name, on every connection. */
export function statementName(text: string): string {
  return `v_${createHash('sha1').update(text).digest('base64url')}`;
}

/** What deallocate needs of a pg client: a simple query (pg's record of what it parsed is read when present). */
export interface PreparingClient {
  query(text: string): Promise<unknown>;
}

/**
 * The named statements one connection holds, most recently used last. The names evicted
 * past the bound are deallocated the next time the connection is checked out, when no
 * transaction is open (an aborted one would refuse DEALLOCATE and leave pg's record of
 * parsed statements wrong); until then pg still knows them, so a text used again in the
 * meantime simply keeps its statement.
 */
export class StatementCache {
  private readonly names = new Map<string, string>();
  private readonly evicted = new Set<string>();

  constructor(private readonly max: number = PREPARED_PER_CONNECTION) {}

  /** The name to run `text` under, or undefined when it goes unnamed (no parameters, or too long). */
  nameFor(text: string, parameterCount: number): string | undefined {
    return parameterCount > 0 && text.length <= PREPARED_MAX_CHARS ? this.name(text) : undefined;
  }

  name(text: string): string {
    let name = this.names.get(text);
    if (name !== undefined) {
      this.names.delete(text);
    } else {
      name = statementName(text);
      this.evicted.delete(name);
      if (this.names.size >= this.max) {
        const [oldText, oldName] = this.names.entries().next().value!;
        this.names.delete(oldText);
        this.evicted.add(oldName);
      }
    }
    this.names.set(text, name);
    return name;
  }

  /** Forgets a statement the server can no longer run (its table changed shape). */
  forget(text: string): void {
    const name = this.names.get(text);
    if (name === undefined) return;
    this.names.delete(text);
    this.evicted.add(name);
  }

  /** The names waiting to be deallocated. */
  pending(): readonly string[] {
    return [...this.evicted];
  }

  /** Deallocates the evicted statements, on a connection with no transaction open. */
  async deallocate(client: PreparingClient): Promise<void> {
    if (this.evicted.size === 0) return;
    const names = [...this.evicted];
    this.evicted.clear();
    await client.query(names.map((n) => `deallocate "${n}"`).join(';'));
    // pg remembers which names it parsed on the connection and would skip their Parse.
    const parsed = (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection
      ?.parsedStatements;
    if (parsed) for (const n of names) delete parsed[n];
  }
}

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed since it was
 * planned (a migration of another process altered its table); preparing it again mends it.
 */
export function isStalePlan(err: unknown): boolean {
  return (err as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String(err));
}
