import type { Context, Middleware } from 'koa';
import { ApiError } from '../errors.js';
import { isWellFormedKey } from '../auth/keys.js';
import type { Store } from '../store/index.js';
import { workspaceLimits } from '../store/workspaces.js';
import type { RateLimiter } from '../limits/rate-limiter.js';

const BEARER = /^Bearer +(\S+) *$/i;

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, { 'WWW-Authenticate': 'Bearer realm="docex"' });
}

/** The key from the one Authorization header, or the reason there is none. */
function bearerKey(ctx: Context): string {
  const headers = ctx.req.rawHeaders.filter((_, i) => i % 2 === 0 && ctx.req.rawHeaders[i].toLowerCase() === 'authorization');
  if (headers.length === 0) throw unauthorized('Missing API key. Send it as "Authorization: Bearer <API_KEY>".');
  if (headers.length > 1) throw unauthorized('Send exactly one Authorization header.');
  const match = BEARER.exec(ctx.get('Authorization'));
  if (!match) throw unauthorized('Malformed Authorization header. Send it as "Authorization: Bearer <API_KEY>".');
  return match[1];
}

/**
 * Authenticates operations that have a bearer requirement. Failed attempts are counted per client
 * address (`failedAuthLimiter`), which slows key guessing; the 401 reports that window.
 */
export function authenticate(store: Store, failedAuthLimiter: RateLimiter, perMinute: number): Middleware {
  const failureLimits = { per_minute: perMinute, per_day: Number.MAX_SAFE_INTEGER };
  return async (ctx, next) => {
    if (!ctx.state.requiredScopes) return next();
    try {
      const secret = bearerKey(ctx);
      const found = isWellFormedKey(secret) ? await store.apiKeys.findBySecret(secret) : undefined;
      if (!found) throw unauthorized('Invalid or revoked API key.');
      ctx.state.principal = { ...found, limits: workspaceLimits(found.workspace) };
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'unauthorized') throw err;
      const decision = await failedAuthLimiter.consume(`auth:${ctx.ip}`, failureLimits);
      const { minute } = decision;
      const windowHeaders = {
        'X-RateLimit-Limit': String(minute.limit),
        'X-RateLimit-Remaining': String(minute.remaining),
        'X-RateLimit-Reset': String(minute.reset),
      };
      if (!decision.allowed) {
        throw new ApiError('rate_limited', `Too many failed authentications from this address; retry in ${decision.retryAfter} seconds.`, {
          ...windowHeaders,
          'Retry-After': String(decision.retryAfter),
        });
      }
      throw new ApiError(err.code, err.message, { ...err.headers, ...windowHeaders });
    }
    await next();
  };
}

/** The operation's scopes, checked after the request has been counted. */
export const requireScopes: Middleware = async (ctx, next) => {
  const principal = ctx.state.principal;
  const missing = (ctx.state.requiredScopes ?? []).filter((s) => !principal?.key.scopes.includes(s as never));
  if (principal && missing.length > 0) {
    throw new ApiError('insufficient_scope', `This operation needs the scope ${missing.join(', ')}; this key has ${principal.key.scopes.join(', ') || 'no scopes'}.`);
  }
  await next();
};
