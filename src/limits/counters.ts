import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Db } from '../store/db.js';

/** Where the rate limiter keeps its counts. Each `add` is atomic in its store. */
export interface CounterBackend {
  /** Adds `delta` (1 or -1) and returns the new count; a counter that does not exist yet lives `ttlSeconds`. */
  add(key: string, delta: number, ttlSeconds: number): Promise<number>;
  get(key: string): Promise<number>;
  /** Writes out what is still only in memory. */
  close(): Promise<void>;
}

const UNBOUNDED = Number.MAX_SAFE_INTEGER;
const MAX_TTL_SECONDS = 2 * 86_400;

/**
 * rate-limiter-flexible does the atomic increment in whichever backend it is given. Its own limit is
 * set out of reach; the plan's limit is compared by the caller, since one store serves every plan.
 */
function flexible(limiter: RateLimiterAbstract): CounterBackend {
  return {
    async add(key, delta, ttlSeconds) {
      if (delta < 0) return (await limiter.reward(key, -delta)).consumedPoints;
      try {
        return (await limiter.consume(key, delta, { customDuration: ttlSeconds })).consumedPoints;
      } catch (err) {
        if (err instanceof RateLimiterRes) return err.consumedPoints;
        throw err;
      }
    },
    async get(key) {
      return (await limiter.get(key))?.consumedPoints ?? 0;
    },
    close: async () => undefined,
  };
}

/** In this process only (failed-authentication windows, tests). */
export function memoryCounters(): CounterBackend {
  return flexible(new RateLimiterMemory({ points: UNBOUNDED, duration: MAX_TTL_SECONDS }));
}

/**
 * Counters in PostgreSQL: every instance on the database shares them (one atomic upsert per count).
 * The table is made by the migrations, under their lock, not by each starting server.
 */
export async function postgresCounters(db: Db): Promise<CounterBackend> {
  let limiter!: RateLimiterPostgres;
  await new Promise<void>((resolve, reject) => {
    limiter = new RateLimiterPostgres(
      { storeClient: db, storeType: 'knex', tableName: 'rate_limit_counters', tableCreated: true, points: UNBOUNDED, duration: MAX_TTL_SECONDS },
      (err?: Error) => (err ? reject(err) : resolve()),
    );
  });
  return flexible(limiter);
}

/**
 * Counters in Redis, shared by every instance (an atomic Lua increment per count). The client must
 * fail fast while disconnected (see limits/redis.ts) so that a Redis outage is a quick 503, not a hang.
 */
export function redisCounters(client: Redis): CounterBackend {
  return flexible(
    new RateLimiterRedis({ storeClient: client, keyPrefix: 'docex:rl', points: UNBOUNDED, duration: MAX_TTL_SECONDS, rejectIfRedisNotReady: true }),
  );
}

interface Count {
  points: number;
  /** Epoch ms. */
  expire: number;
}

const FLUSH_MS = 1000;
const TABLE = 'rate_limit_counters';

/**
 * Counters of the one server an SQLite database serves: counted in memory (a single process, so a
 * plain increment is atomic) and written to SQLite once a second and on close, so a restart does not
 * reset anyone's day. Counting through SQLite itself costs a write per count on a one-connection
 * database and capped throughput at a few hundred requests a second; the price of this design is that
 * a crash (not a clean stop) forgets at most the last second's counts.
 */
export async function sqliteCounters(db: Db, now: () => number = Date.now): Promise<CounterBackend> {
  // Same table and columns as rate-limiter-flexible's SQLite store used before, so counts carry over.
  if (!(await db.schema.hasTable(TABLE))) {
    await db.schema.createTable(TABLE, (t) => {
      t.text('key').primary();
      t.integer('points').notNullable().defaultTo(0);
      t.bigInteger('expire');
    });
  }
  const counts = new Map<string, Count>();
  for (const row of await db(TABLE).where('expire', '>', now()).select<{ key: string; points: number; expire: number }[]>('key', 'points', 'expire')) {
    counts.set(row.key, { points: Number(row.points), expire: Number(row.expire) });
  }
  const dirty = new Set<string>();

  const write = async () => {
    const at = now();
    const keys = [...dirty];
    dirty.clear();
    for (const [key, c] of counts) if (c.expire <= at) counts.delete(key);
    const rows = keys.flatMap((key) => {
      const c = counts.get(key);
      return c ? [{ key, points: c.points, expire: c.expire }] : [];
    });
    try {
      await db.transaction(async (trx) => {
        // 3 bound values a row; SQLite allows 999 in one statement.
        for (let i = 0; i < rows.length; i += 300) {
          await trx(TABLE).insert(rows.slice(i, i + 300)).onConflict('key').merge(['points', 'expire']);
        }
        await trx(TABLE).where('expire', '<=', at).delete();
      });
    } catch (err) {
      // Written with the next flush instead (e.g. after a busy disk).
      for (const key of keys) dirty.add(key);
      throw err;
    }
  };
  // One write at a time, in order; a failed write does not stop the ones after it.
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => (flushing = flushing.catch(() => undefined).then(write));
  const timer = setInterval(() => {
    if (dirty.size > 0) flush().catch(() => undefined);
  }, FLUSH_MS);
  timer.unref();

  return {
    async add(key, delta, ttlSeconds) {
      const at = now();
      let c = counts.get(key);
      if (!c || c.expire <= at) {
        c = { points: 0, expire: at + ttlSeconds * 1000 };
        counts.set(key, c);
      }
      c.points += delta;
      dirty.add(key);
      return c.points;
    },
    async get(key) {
      const c = counts.get(key);
      return c && c.expire > now() ? c.points : 0;
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
