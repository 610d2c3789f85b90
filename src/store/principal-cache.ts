import type { ChangeSignal } from './change-signal.js';

/**
 * Authenticated keys remembered by hash, each with the change token it was read under: an entry is
 * served only while that token is still current, so a revocation or plan change made anywhere counts
 * from the next request without a query per request. Bounded; the oldest entry goes first.
 */
export interface PrincipalCache<V> {
  /** The token to read a key under: taken before the query, so a change during the query is not missed. Null: do not remember. */
  token(): string | null;
  get(hash: string): V | undefined;
  set(hash: string, value: V, token: string | null): void;
  /** Forgets everything at once (this process's own changes, before their signal arrives). */
  clear(): void;
}

export function principalCache<V>(signal: ChangeSignal, maxEntries = 10_000): PrincipalCache<V> {
  const entries = new Map<string, { value: V; token: string }>();
  return {
    token: () => signal.token(),
    get(hash) {
      const token = signal.token();
      // Without a token nothing can be vouched for, including what a later token might match again.
      if (token === null) entries.clear();
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.token === token) return entry.value;
      entries.delete(hash);
      return undefined;
    },
    set(hash, value, token) {
      if (token === null) return;
      // Map keeps insertion order, so the first key is the oldest.
      if (entries.size >= maxEntries && !entries.has(hash)) entries.delete(entries.keys().next().value!);
      entries.set(hash, { value, token });
    },
    clear() {
      entries.clear();
    },
  };
}
