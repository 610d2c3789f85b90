import type { Middleware } from 'koa';
import { ApiError } from '../errors.js';
import type { Decision, RateLimiter } from '../limits/rate-limiter.js';
import type { Logger } from '../logger.js';

export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.minute.limit),
    'X-RateLimit-Remaining': String(d.minute.remaining),
    'X-RateLimit-Reset': String(d.minute.reset),
    'X-RateLimit-Limit-Day': String(d.day.limit),
    'X-RateLimit-Remaining-Day': String(d.day.remaining),
    'X-RateLimit-Reset-Day': String(d.day.reset),
  };
}

export interface RateLimitOptions {
  failOpen: boolean;
  onRejected?: (window: 'minute' | 'day') => void;
}

/**
 * Counts every authenticated request against its key's two windows. The headers are set before the
 * handler runs, so error responses carry them too. When the counter store cannot be reached the
 * request is refused with 503 (fail closed) unless RATE_LIMIT_FAIL_OPEN is set.
 */
export function rateLimit(limiter: RateLimiter, logger: Logger, options: RateLimitOptions): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) return next();
    let decision: Decision;
    try {
      decision = await limiter.consume(principal.key.id, principal.limits);
    } catch (err) {
      logger.error({ err, request_id: ctx.state.requestId }, 'rate-limit store unavailable');
      if (options.failOpen) return next();
      throw new ApiError('service_unavailable', 'The rate-limit store is unavailable; retry shortly.', { 'Retry-After': '5' });
    }
    ctx.set(rateLimitHeaders(decision));
    if (!decision.allowed) {
      const window = decision.refusedBy ?? 'minute';
      options.onRejected?.(window);
      const limit = window === 'day' ? `${decision.day.limit} requests per day` : `${decision.minute.limit} requests per minute`;
      throw new ApiError('rate_limited', `Rate limit of ${limit} exceeded; retry in ${decision.retryAfter} seconds.`, {
        'Retry-After': String(decision.retryAfter),
      });
    }
    await next();
  };
}
