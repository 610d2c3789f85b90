import type { CounterBackend } from './counters.js';
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

const ttlSeconds = (windowMs: number) => Math.ceil((2 * windowMs) / 1000);

async function undo(counters: CounterBackend, key: string, windowMs: number): Promise<void> {
  await counters.add(key, -1, ttlSeconds(windowMs));
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

      // The day is counted only when the minute has room: a refused request consumes nothing.
      const [minuteCount = 0, dayCount = 0] = await counters.addWithin([
        { key: minuteKey, ttlSeconds: ttlSeconds(MINUTE_MS), limit: limits.per_minute },
        { key: dayKey, ttlSeconds: ttlSeconds(DAY_MS), limit: limits.per_day },
      ]);
      if (minuteCount > limits.per_minute) {
        await undo(counters, minuteKey, MINUTE_MS);
        const dayCounted = await counters.get(dayKey);
        return {
          allowed: false,
          minute: { limit: limits.per_minute, remaining: 0, reset: minuteReset },
          day: { limit: limits.per_day, remaining: Math.max(0, limits.per_day - dayCounted), reset: dayReset },
          refusedBy: 'minute',
          retryAfter: Math.max(1, Math.ceil(minuteReset - nowSeconds)),
        };
      }
      if (dayCount > limits.per_day) {
        await Promise.all([undo(counters, dayKey, DAY_MS), undo(counters, minuteKey, MINUTE_MS)]);
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
