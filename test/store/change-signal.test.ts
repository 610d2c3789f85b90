import { describe, expect, it } from 'vitest';
import { noSignal, sqliteFileSignal } from '../../src/store/change-signal.js';
import { principalCache } from '../../src/store/principal-cache.js';

describe('sqliteFileSignal', () => {
  const files: Record<string, { mtimeMs: number; size: number; ino: number } | undefined> = {};
  let now = 10_000;
  const signal = sqliteFileSignal('/db', () => now, (file) => files[file]);

  it('gives no token while the write-ahead log is missing or was written less than 20 ms ago, then a stable one', () => {
    expect(signal.token()).toBeNull();
    files['/db-wal'] = { mtimeMs: 9_990, size: 8192, ino: 2 };
    expect(signal.token()).toBeNull();
    now = 10_010;
    const token = signal.token();
    expect(token).not.toBeNull();
    now = 60_000;
    expect(signal.token()).toBe(token);
  });

  it('changes the token when the log is written, grows or is replaced', () => {
    now = 100_000;
    const before = signal.token();
    files['/db-wal'] = { mtimeMs: 9_995, size: 8192, ino: 2 };
    const written = signal.token();
    files['/db-wal'] = { mtimeMs: 9_995, size: 12_288, ino: 2 };
    const grown = signal.token();
    files['/db-wal'] = { mtimeMs: 9_995, size: 12_288, ino: 3 };
    const replaced = signal.token();
    expect(new Set([before, written, grown, replaced]).size).toBe(4);
  });
});

describe('principalCache', () => {
  it('serves an entry only under the token it was read under, and remembers nothing without one', () => {
    let token: string | null = 'a';
    const cache = principalCache<number>({ token: () => token, close: async () => undefined });
    cache.set('k', 1, cache.token());
    expect(cache.get('k')).toBe(1);
    token = 'b';
    expect(cache.get('k')).toBeUndefined();
    token = 'a';
    expect(cache.get('k')).toBeUndefined();
    token = null;
    cache.set('k', 2, cache.token());
    expect(cache.get('k')).toBeUndefined();
    expect(principalCache<number>(noSignal).token()).toBeNull();
  });

  it('drops the oldest entry when full, and everything on clear', () => {
    const cache = principalCache<number>({ token: () => 't', close: async () => undefined }, 2);
    cache.set('a', 1, 't');
    cache.set('b', 2, 't');
    cache.set('c', 3, 't');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
  });
});
