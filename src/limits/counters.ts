import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Db } from '../store/db.js';

/** One counter of an `addWithin`: its key, how long it lives when it does not exist yet, and the count it may reach. */
export interface Step {
  key: string;
  ttlSeconds: number;
  limit: number;
}

/** Where the rate limiter keeps its counts. Each `add` is atomic in its store. */
export interface CounterBackend {
  /** Adds `delta` (1 or -1) and returns the new count; a counter that does not exist yet lives `ttlSeconds`. */
  add(key: string, delta: number, ttlSeconds: number): Promise<number>;
  /**
   * Adds 1 to each counter in turn while the counts stay within their limits: returns the counts
   * reached, the last of them past its limit when one was (that addition stands; the caller undoes it).
   */
  addWithin(steps: Step[]): Promise<number[]>;
  get(key: string): Promise<number>;
  /** Writes out what is still only in memory. */
  close(): Promise<void>;
}

/** `addWithin` as one `add` after another, for stores where each is cheap (in memory, Redis). */
async function addInTurn(add: CounterBackend['add'], steps: Step[]): Promise<number[]> {
  const counts: number[] = [];
  for (const { key, ttlSeconds, limit } of steps) {
    const count = await add(key, 1, ttlSeconds);
    counts.push(count);
    if (count > limit) break;
  }
  return counts;
}

const UNBOUNDED = Number.MAX_SAFE_INTEGER;
const MAX_TTL_SECONDS = 2 * 86_400;

/**
 * rate-limiter-flexible does the atomic increment in whichever backend it is given. Its own limit is
 * set out of reach; the plan's limit is compared by the caller, since one store serves every plan.
 */
function flexible(limiter: RateLimiterAbstract): CounterBackend {
  const add: CounterBackend['add'] = async (key, delta, ttlSeconds) => {
    if (delta < 0) return (await limiter.reward(key, -delta)).consumedPoints;
    try {
      return (await limiter.consume(key, delta, { customDuration: ttlSeconds })).consumedPoints;
    } catch (err) {
      if (err instanceof RateLimiterRes) return err.consumedPoints;
      throw err;
    }
  };
  return {
    add,
    addWithin: (steps) => addInTurn(add, steps),
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

const TABLE = 'rate_limit_counters';
/** rate-limiter-flexible's prefix of its keys in the table, named here since `addWithin` writes the same rows itself. */
const POSTGRES_KEY_PREFIX = 'rlflx';

/**
 * One counter's upsert as rate-limiter-flexible's PostgreSQL store writes it (an expired count starts
 * afresh), from the rows `source` selects: `VALUES (?, 1, ?)` or a select from the previous step.
 */
const upsertOne = (source: string) =>
  `INSERT INTO ${TABLE} (key, points, expire) ${source}
   ON CONFLICT (key) DO UPDATE SET
     points = CASE WHEN ${TABLE}.expire <= ? THEN 1 ELSE ${TABLE}.points + 1 END,
     expire = CASE WHEN ${TABLE}.expire <= ? THEN excluded.expire ELSE ${TABLE}.expire END
   RETURNING points`;

/**
 * `addWithin` in one statement, so one round trip and one commit for the whole request: each step's
 * upsert selects from the one before, so it runs only when that count stayed within its limit.
 */
function addWithinStatement(db: Db, steps: Step[], now: number): Promise<number[]> {
  const parts: string[] = [];
  const bindings: (string | number)[] = [];
  steps.forEach(({ key, ttlSeconds }, i) => {
    const expire = now + ttlSeconds * 1000;
    const source = i === 0 ? 'VALUES (?, 1, ?)' : `SELECT ?::varchar, 1, ?::bigint FROM step${i - 1} WHERE points <= ?`;
    parts.push(`step${i} AS (${upsertOne(source)})`);
    bindings.push(`${POSTGRES_KEY_PREFIX}:${key}`, expire, ...(i === 0 ? [] : [steps[i - 1]!.limit]), now, now);
  });
  const counts = steps.map((_, i) => `(SELECT points FROM step${i}) AS step${i}`).join(', ');
  return db.raw(`WITH ${parts.join(', ')} SELECT ${counts}`, bindings).then(({ rows }: { rows: Record<string, number | null>[] }) =>
    steps.map((_, i) => rows[0]![`step${i}`]).filter((count): count is number => count !== null),
  );
}

/**
 * Counters in PostgreSQL: every instance on the database shares them (an atomic upsert per count, and
 * a request's counts in one statement). The table is made by the migrations, under their lock, not by
 * each starting server.
 */
export async function postgresCounters(db: Db): Promise<CounterBackend> {
  let limiter!: RateLimiterPostgres;
  await new Promise<void>((resolve, reject) => {
    limiter = new RateLimiterPostgres(
      { storeClient: db, storeType: 'knex', tableName: TABLE, tableCreated: true, keyPrefix: POSTGRES_KEY_PREFIX, points: UNBOUNDED, duration: MAX_TTL_SECONDS },
      (err?: Error) => (err ? reject(err) : resolve()),
    );
  });
  // Date.now, as rate-limiter-flexible's own upserts of the same rows use.
  return { ...flexible(limiter), addWithin: (steps) => addWithinStatement(db, steps, Date.now()) };
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

  const add: CounterBackend['add'] = async (key, delta, ttlSeconds) => {
    const at = now();
    let c = counts.get(key);
    if (!c || c.expire <= at) {
      c = { points: 0, expire: at + ttlSeconds * 1000 };
      counts.set(key, c);
    }
    c.points += delta;
    dirty.add(key);
    return c.points;
  };
  return {
    add,
    addWithin: (steps) => addInTurn(add, steps),
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
