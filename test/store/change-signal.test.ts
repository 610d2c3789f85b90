import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { changeLog, noSignal, sqliteLogSignal } from '../../src/store/change-signal.js';
import { principalCache } from '../../src/store/principal-cache.js';

describe('sqliteLogSignal', () => {
  it('gives a token that holds until the change log grows or is replaced, and none while it is missing', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-signal-'));
    try {
      const database = path.join(dir, 'docex.sqlite');
      const signal = sqliteLogSignal(database);
      const first = signal.token();
      expect(first).not.toBeNull();
      expect(signal.token()).toBe(first);
      fs.appendFileSync(changeLog(database), '.');
      const grown = signal.token();
      fs.rmSync(changeLog(database));
      expect(signal.token()).toBeNull();
      fs.writeFileSync(changeLog(database), '..');
      expect(new Set([first, grown, signal.token()]).size).toBe(3);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
    cache.set('k', 2, cache.token());
    token = null;
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', 3, cache.token());
    token = 'a';
    // Forgotten while there was no token, although the same token came back.
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
