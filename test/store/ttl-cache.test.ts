import { describe, expect, it } from 'vitest';
import { ttlCache } from '../../src/store/ttl-cache.js';

describe('ttlCache', () => {
  it('returns an entry until its time is up, then forgets it', () => {
    let now = 1000;
    const cache = ttlCache<string>(50, 10, () => now);
    cache.set('a', 'A');
    now = 1049;
    expect(cache.get('a')).toBe('A');
    now = 1050;
    expect(cache.get('a')).toBeUndefined();
  });

  it('drops the oldest entry when full, and everything on clear', () => {
    const cache = ttlCache<number>(60_000, 2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, 2, 3]);
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
  });

  it('holds nothing with a time to live of 0', () => {
    const cache = ttlCache<number>(0);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });
});
