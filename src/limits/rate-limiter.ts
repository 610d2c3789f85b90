import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  RateLimiterSQLite,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Db } from '../store/db.js';
import type { Limits } from './plans.js';

export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() };

/** One window's state after a request, as the `X-RateLimit-*` headers report it. */
export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix epoch seconds at which the window starts afresh. */
  reset: number;
}

export interface Decision {
  allowed: boolean;
  minute: WindowState;
  day: WindowState;
  /** The window that refused the request and the seconds until it resets (only when refused). */
  refusedBy?: 'minute' | 'day';
  retryAfter?: number;
}

/** Per-key limits in two fixed windows (clock minute, UTC day). Refused requests consume nothing. */
export interface RateLimiter {
  consume(subject: string, limits: Limits): Promise<Decision>;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * A counter store: rate-limiter-flexible does the atomic increment in whichever backend is configured.
 * Its own limit is set out of reach; the plan's limit is compared here, since one store serves every plan.
 */
export type CounterBackend = RateLimiterAbstract;

const UNBOUNDED = Number.MAX_SAFE_INTEGER;

export function memoryCounters(): CounterBackend {
  return new RateLimiterMemory({ points: UNBOUNDED, duration: 2 * 86_400 });
}

/** Counters in the SQLite database, so a restart does not reset anyone's day. */
export async function sqliteCounters(db: Db): Promise<CounterBackend> {
  let limiter!: RateLimiterSQLite;
  await new Promise<void>((resolve, reject) => {
    limiter = new RateLimiterSQLite(
      { storeClient: db, storeType: 'knex', tableName: 'rate_limit_counters', points: UNBOUNDED, duration: 2 * 86_400 },
      (err?: Error) => (err ? reject(err) : resolve()),
    );
  });
  return limiter;
}

/**
 * Counters in PostgreSQL: every instance on the database shares them (one atomic upsert per count).
 * The table is made by the migrations, under their lock, not by each starting server.
 */
export async function postgresCounters(db: Db): Promise<CounterBackend> {
  let limiter!: RateLimiterPostgres;
  await new Promise<void>((resolve, reject) => {
    limiter = new RateLimiterPostgres(
      { storeClient: db, storeType: 'knex', tableName: 'rate_limit_counters', tableCreated: true, points: UNBOUNDED, duration: 2 * 86_400 },
      (err?: Error) => (err ? reject(err) : resolve()),
    );
  });
  return limiter;
}

/**
 * Counters in Redis, shared by every instance (an atomic Lua increment per count). The client must
 * fail fast while disconnected (see limits/redis.ts) so that a Redis outage is a quick 503, not a hang.
 */
export function redisCounters(client: Redis): CounterBackend {
  return new RateLimiterRedis({ storeClient: client, keyPrefix: 'docex:rl', points: UNBOUNDED, duration: 2 * 86_400, rejectIfRedisNotReady: true });
}

async function increment(counters: CounterBackend, key: string, windowMs: number): Promise<number> {
  try {
    const res = await counters.consume(key, 1, { customDuration: Math.ceil((2 * windowMs) / 1000) });
    return res.consumedPoints;
  } catch (err) {
    if (err instanceof RateLimiterRes) return err.consumedPoints;
    throw err;
  }
}

async function undo(counters: CounterBackend, key: string): Promise<void> {
  await counters.reward(key, 1);
}

export function createRateLimiter(counters: CounterBackend, clock: Clock = systemClock): RateLimiter {
  return {
    async consume(subject, limits) {
      const now = clock.now();
      const minuteIndex = Math.floor(now / MINUTE_MS);
      const dayIndex = Math.floor(now / DAY_MS);
      const minuteKey = `m:${subject}:${minuteIndex}`;
      const dayKey = `d:${subject}:${dayIndex}`;
      const minuteReset = ((minuteIndex + 1) * MINUTE_MS) / 1000;
      const dayReset = ((dayIndex + 1) * DAY_MS) / 1000;
      const nowSeconds = now / 1000;

      const minuteCount = await increment(counters, minuteKey, MINUTE_MS);
      if (minuteCount > limits.per_minute) {
        await undo(counters, minuteKey);
        const dayRes = await counters.get(dayKey);
        return {
          allowed: false,
          minute: { limit: limits.per_minute, remaining: 0, reset: minuteReset },
          day: { limit: limits.per_day, remaining: Math.max(0, limits.per_day - (dayRes?.consumedPoints ?? 0)), reset: dayReset },
          refusedBy: 'minute',
          retryAfter: Math.max(1, Math.ceil(minuteReset - nowSeconds)),
        };
      }
      const dayCount = await increment(counters, dayKey, DAY_MS);
      if (dayCount > limits.per_day) {
        await Promise.all([undo(counters, dayKey), undo(counters, minuteKey)]);
        return {
          allowed: false,
          minute: { limit: limits.per_minute, remaining: Math.max(0, limits.per_minute - minuteCount + 1), reset: minuteReset },
          day: { limit: limits.per_day, remaining: 0, reset: dayReset },
          refusedBy: 'day',
          retryAfter: Math.max(1, Math.ceil(dayReset - nowSeconds)),
        };
      }
      return {
        allowed: true,
        minute: { limit: limits.per_minute, remaining: limits.per_minute - minuteCount, reset: minuteReset },
        day: { limit: limits.per_day, remaining: limits.per_day - dayCount, reset: dayReset },
      };
    },
  };
}
