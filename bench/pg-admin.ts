import pg from 'pg';

/** One statement on the server's `postgres` database (`server`: a URL without a database), as the benches make and drop theirs. */
export async function pgAdmin(server: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: `${server}/postgres` });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}
