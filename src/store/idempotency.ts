import type { Db } from './db.js';

/** The answer a request under an idempotency key got, replayed to later requests with that key. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type IdempotencyClaim =
  /** The key is new (or its earlier use expired): this request runs and its answer is kept. */
  | { state: 'claimed' }
  /** A request under this key is still running. */
  | { state: 'running' }
  /** The key was used with another operation or body. */
  | { state: 'mismatch' }
  | { state: 'done'; response: StoredResponse };

interface Row {
  api_key_id: string;
  key: string;
  fingerprint: string;
  state: 'running' | 'done';
  response: string | null;
  created_at: number | string;
}

/** Keys are remembered this long after their first use. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;

/**
 * A key still `running` after this long belongs to a request that will never finish (its server
 * stopped); longer than any request may take (10-minute request timeout plus the shutdown wait).
 */
const RUNNING_STALE_MS = 15 * 60_000;

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number };
  return e.code === '23505' || (e.code === 'SQLITE_CONSTRAINT' && /UNIQUE|PRIMARY/.test(String((err as Error).message)));
}

/** Idempotency keys per API key: the first request under a key claims it, later ones get its answer. */
export function idempotencyRepository(db: Db) {
  const table = () => db<Row>('idempotency_keys');
  return {
    async claim(apiKeyId: string, key: string, fingerprint: string, now: number): Promise<IdempotencyClaim> {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await table().insert({ api_key_id: apiKeyId, key, fingerprint, state: 'running', response: null, created_at: now });
          return { state: 'claimed' };
        } catch (err) {
          if (!isUniqueViolation(err)) throw err;
        }
        const row = await table().where({ api_key_id: apiKeyId, key }).first();
        if (!row) continue;
        const age = now - Number(row.created_at);
        if (age >= IDEMPOTENCY_TTL_MS || (row.state === 'running' && age >= RUNNING_STALE_MS)) {
          // Only the row that was read is removed, so two requests reviving a key do not both win.
          await table().where({ api_key_id: apiKeyId, key, created_at: row.created_at }).delete();
          continue;
        }
        if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
        if (row.state === 'running') return { state: 'running' };
        return { state: 'done', response: JSON.parse(row.response!) as StoredResponse };
      }
      return { state: 'running' };
    },
    async complete(apiKeyId: string, key: string, response: StoredResponse): Promise<void> {
      await table().where({ api_key_id: apiKeyId, key, state: 'running' }).update({ state: 'done', response: JSON.stringify(response) });
    },
    /** Forgets a claim whose request ended in an error, so that the client can retry with the same key. */
    async release(apiKeyId: string, key: string): Promise<void> {
      await table().where({ api_key_id: apiKeyId, key, state: 'running' }).delete();
    },
    /** Deletes keys first used before `before` (epoch ms); returns how many. */
    async prune(before: number): Promise<number> {
      return table().where('created_at', '<', before).delete();
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof idempotencyRepository>;
