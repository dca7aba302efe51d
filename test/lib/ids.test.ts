import { afterEach, describe, expect, it, vi } from 'vitest';
import { isIdOf, newId } from '../../src/lib/ids.ts';

describe('newId', () => {
  afterEach(() => vi.useRealTimers());

  it('makes ids of a prefix, an underscore and 22 base62 characters, each kind its own', () => {
    for (const kind of ['customer', 'webhook_event', 'webhook_delivery'] as const) {
      const id = newId(kind);
      expect(id).toMatch(/^[a-z]+_[0-9A-Za-z]{22}$/);
      expect(isIdOf(kind, id)).toBe(true);
    }
    expect(isIdOf('customer', newId('webhook_event'))).toBe(false);
  });

  it('begins a change’s, a webhook event’s or a delivery’s id with its time, so later ids sort after earlier ones', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const ids: string[] = [];
    for (const at of [
      Date.UTC(2026, 0, 1),
      Date.UTC(2026, 0, 1, 0, 0, 0, 1),
      Date.UTC(2031, 5, 2),
      Date.UTC(2099, 11, 31),
    ]) {
      vi.setSystemTime(at);
      ids.push(newId('change'), newId('webhook_event'), newId('webhook_delivery'));
    }
    for (const prefix of ['chg_', 'whe_', 'whd_']) {
      const ofKind = ids.filter((id) => id.startsWith(prefix));
      expect(ofKind).toHaveLength(4);
      expect([...ofKind].sort()).toEqual(ofKind);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps the random part of ids made in the same millisecond apart', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 25));
    const ids = Array.from({ length: 1000 }, () => newId('webhook_event'));
    expect(new Set(ids).size).toBe(1000);
    expect(new Set(ids.map((id) => id.slice(0, 12))).size).toBe(1);
  });

  it('keeps every other kind wholly random, as DECISIONS "Lists and ids" says', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 10, 25));
    const prefixes = new Set(Array.from({ length: 200 }, () => newId('customer').slice(0, 8)));
    expect(prefixes.size).toBeGreaterThan(150);
  });
});
