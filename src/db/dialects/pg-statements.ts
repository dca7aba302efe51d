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

/**
 * The statement texts one connection has run by name. pg prepares a named statement on its
 * first use on a connection and keeps it as long as the connection lives, and nothing public
 * lets it forget one; so past the bound, or once a statement's plan went stale, the
 * connection takes no new names and is retired at its release: the pool opens a fresh one.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private retiring = false;

  constructor(private readonly max: number = PREPARED_PER_CONNECTION) {}

  /** The name to run `text` under, or undefined when it goes unnamed (no parameters, too long, or none left). */
  nameFor(text: string, parameterCount: number): string | undefined {
    if (parameterCount === 0 || text.length > PREPARED_MAX_CHARS || this.retiring) return undefined;
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= this.max) {
        this.retiring = true;
        return undefined;
      }
      name = statementName(text);
      this.names.set(text, name);
    }
    return name;
  }

  /** The connection's statements can no longer be trusted (a table changed shape under one). */
  retire(): void {
    this.retiring = true;
  }

  /** Whether the connection is to be closed at its release rather than go back to the pool. */
  get retired(): boolean {
    return this.retiring;
  }
}

/**
 * PostgreSQL refuses to run a prepared statement whose result columns changed since it was
 * planned (a migration of another process altered its table); parsing it again mends it.
 */
export function isStalePlan(err: unknown): boolean {
  return (err as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String(err));
}
