import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC, latestRun, renderCapacity, withCapacity } from '../../bench/capacity.ts';

describe('docs/operations.md "Capacity"', () => {
  it('is what bench/capacity.ts writes from the newest kept PostgreSQL run', () => {
    const doc = readFileSync(DOC, 'utf8');
    const { file, run } = latestRun();
    expect(withCapacity(doc, renderCapacity(file, run))).toBe(doc);
  });

  it('names the tier that bounds a fleet first: the API while it has few cores, then the primary', () => {
    const run = {
      engine: 'postgres',
      customers: 1000,
      redis: {},
      scenarios: [
        { name: 'get_one', rps: 1, cpu_us_per_request: { api: 250, postgres: 100, redis: 20 } },
        { name: 'create', rps: 1, cpu_us_per_request: { api: 1000, postgres: 400, redis: 50 } },
      ],
    };
    const rows = renderCapacity('x-postgres.json', run)
      .split('\n')
      .filter((l) => /^\| \d+ \|/.test(l));
    // Reads a core: API 4,000, PostgreSQL 10,000, Redis 50,000; writes: 1,000, 2,500, 20,000.
    expect(rows[0]).toBe('| 1 | 200 (API) | 50 (API) | 200 (API) | 50 (API) |');
    expect(rows[3]).toBe('| 8 | 1,600 (API) | 400 (API) | 1,600 (API) | 400 (API) |');
    expect(rows[4]).toBe('| 16 | 2,000 (PostgreSQL) | 500 (PostgreSQL) | 2,500 (Redis) | 800 (API) |');
    expect(rows[5]).toBe('| 32 | 2,000 (PostgreSQL) | 500 (PostgreSQL) | 2,500 (Redis) | 1,000 (Redis) |');
  });
});
