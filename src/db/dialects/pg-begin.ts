import pg from 'pg';

/** What pg's Query does on the wire, as far as sending BEGIN ahead of it needs. */
interface Wire {
  parse(msg: { text: string; name: string; types?: unknown[] }): void;
  bind(msg: { portal: string; statement: string; values: unknown[] }): void;
  execute(msg: { portal: string; rows: number }): void;
  parsedStatements: Record<string, string>;
}

interface QueryInternals {
  name?: string;
  prepare(connection: Wire): void;
  handleCommandComplete(msg: unknown, connection: Wire): void;
  handleError(err: Error, connection: Wire): void;
}

const Base = pg.Query as unknown as new (config: object) => QueryInternals;

/**
 * A named statement with the transaction's BEGIN sent ahead of it in the same round trip:
 * Parse, Bind and Execute of BEGIN, then the statement's own messages and one Sync. The
 * server runs them in order and skips the statement if BEGIN fails, so it never runs
 * outside its transaction; BEGIN's CommandComplete is not the statement's result.
 */
class AfterBegin extends Base {
  private begun = false;

  constructor(
    private readonly begin: string,
    config: object,
  ) {
    super(config);
  }

  override prepare(connection: Wire): void {
    connection.parse({ text: this.begin, name: '' });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '', rows: 0 });
    super.prepare(connection);
  }

  override handleCommandComplete(msg: unknown, connection: Wire): void {
    if (!this.begun) {
      this.begun = true;
      return;
    }
    super.handleCommandComplete(msg, connection);
  }

  override handleError(err: Error, connection: Wire): void {
    // BEGIN's ParseComplete made pg record the statement as parsed, though the server
    // skipped its Parse after BEGIN failed.
    if (!this.begun && this.name) delete connection.parsedStatements[this.name];
    super.handleError(err, connection);
  }
}

export interface NamedQuery {
  name: string;
  text: string;
  values: unknown[];
  query_timeout?: number;
}

/** Runs a named statement on `client` with `begin` in the same round trip. */
export function queryAfterBegin(client: pg.PoolClient, begin: string, query: NamedQuery): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const submittable = new AfterBegin(begin, {
      ...query,
      callback: (err: Error | null, res: pg.QueryResult) => (err ? reject(err) : resolve(res)),
    });
    // pg reads the read timeout from the submitted object itself.
    Object.assign(submittable, { query_timeout: query.query_timeout });
    (client as unknown as { query(q: unknown): void }).query(submittable);
  });
}
