import { describe, expect, it } from 'vitest';
import { DatabaseUnavailable } from '../../src/db/unavailable.ts';
import { OutageLog } from '../../src/lib/outage-log.ts';

describe('OutageLog', () => {
  it('logs an outage once when it begins and once when the job works again; other failures each time', () => {
    const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
    const log = {
      warn: (obj: object, msg: string) => lines.push({ level: 'warn', msg, obj: obj as Record<string, unknown> }),
      info: (obj: object, msg: string) => lines.push({ level: 'info', msg, obj: obj as Record<string, unknown> }),
    };
    const claims = new OutageLog(log, 'claiming webhook deliveries');
    const down = new DatabaseUnavailable('down', 'connect ECONNREFUSED 127.0.0.1:5432');
    for (let i = 0; i < 6; i++) claims.failed(down);
    claims.succeeded();
    claims.succeeded();
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      'warn claiming webhook deliveries failed: the database cannot serve; retrying quietly until it can',
      'info claiming webhook deliveries works again',
    ]);
    // No stack trace for an outage: its reason and message.
    expect(lines[0]!.obj).toEqual({ reason: 'down', error: 'connect ECONNREFUSED 127.0.0.1:5432' });
    lines.length = 0;
    claims.failed(new Error('a bug'));
    claims.failed(new Error('a bug'));
    expect(lines).toHaveLength(2);
    expect(lines[0]!.obj.err).toBeInstanceOf(Error);
  });
});
