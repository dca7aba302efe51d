import { describe, expect, it } from 'vitest';
import type { RequestLogTable } from '../../src/db/tables/activity.ts';
import { DatabaseUnavailable } from '../../src/db/unavailable.ts';
import { RequestLogWriter } from '../../src/jobs/request-log-writer.ts';

const row = (i: number): RequestLogTable => ({
  id: `req_${String(i).padStart(22, '0')}`,
  workspace_id: 'wsp_x',
  key_id: 'key_x',
  method: 'GET',
  path: '/customers',
  status: 200,
  code: null,
  duration_ms: 1,
  ip: '127.0.0.1',
  user_agent: null,
  version: null,
  request_body: null,
  response_body: null,
  truncated: 0,
  created_at: i,
});

/** A save that records each batch it wrote, and fails while `down` says so. */
function fakeSave(state: { down: false | 'unavailable' | 'refused'; written: string[][] }) {
  return async (rows: RequestLogTable[]): Promise<void> => {
    if (state.down === 'unavailable') throw new DatabaseUnavailable('down', 'the database is down');
    if (state.down === 'refused') throw new Error('constraint failed');
    state.written.push(rows.map((r) => r.id));
  };
}

describe('the request log writer', () => {
  it('keeps rows through an outage, in order, within its bound, and counts what it drops', async () => {
    const state: { down: false | 'unavailable' | 'refused'; written: string[][] } = {
      down: 'unavailable',
      written: [],
    };
    let dropped = 0;
    const writer = new RequestLogWriter(fakeSave(state), {
      maxPending: 5,
      batch: 1_000,
      onDropped: (n) => (dropped += n),
    });
    for (let i = 0; i < 4; i++) writer.add(row(i));
    await writer.flush(); // fails: the four go back
    for (let i = 4; i < 8; i++) writer.add(row(i)); // one fits, three are dropped
    expect(dropped).toBe(3);
    state.down = false;
    await writer.flush();
    expect(state.written).toEqual([[0, 1, 2, 3, 4].map((i) => row(i).id)]);
  });

  it('drops a batch the database refused outright, and writes the next', async () => {
    const state: { down: false | 'unavailable' | 'refused'; written: string[][] } = { down: 'refused', written: [] };
    let dropped = 0;
    const errors: unknown[] = [];
    const writer = new RequestLogWriter(fakeSave(state), {
      onDropped: (n) => (dropped += n),
      onError: (err) => errors.push(err),
    });
    writer.add(row(1));
    await writer.flush();
    expect(dropped).toBe(1);
    expect(errors).toHaveLength(1);
    state.down = false;
    writer.add(row(2));
    await writer.stop();
    expect(state.written).toEqual([[row(2).id]]);
  });

  it('writes a batch as soon as it is full, without waiting for the timer', async () => {
    const state: { down: false | 'unavailable' | 'refused'; written: string[][] } = { down: false, written: [] };
    const writer = new RequestLogWriter(fakeSave(state), { batch: 3, flushMs: 60_000 });
    for (let i = 0; i < 3; i++) writer.add(row(i));
    await writer.flush();
    expect(state.written[0]).toHaveLength(3);
  });
});
