/**
 * A bounded map whose entries expire `ttlMs` after they were set. With a TTL of 0 it holds nothing,
 * so callers need no separate path for "caching off".
 */
export interface TtlCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  clear(): void;
}

export function ttlCache<V>(ttlMs: number, maxEntries = 10_000, now: () => number = Date.now): TtlCache<V> {
  const entries = new Map<string, { value: V; expires: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires > now()) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set(key, value) {
      if (ttlMs <= 0) return;
      // Map keeps insertion order, so the first key is the oldest.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expires: now() + ttlMs });
    },
    clear() {
      entries.clear();
    },
  };
}
