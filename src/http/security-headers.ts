import type { Middleware } from 'koa';

/** Headers for every response; CORS only for origins listed in CORS_ORIGINS. */
export function securityHeaders(corsOrigins: string[]): Middleware {
  const allowed = new Set(corsOrigins);
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    if (!ctx.path.startsWith('/docs')) ctx.set('Cache-Control', 'no-store');
    const origin = ctx.get('Origin');
    if (origin && (allowed.has(origin) || allowed.has('*'))) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Vary', 'Origin');
      ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Limit-Day, X-RateLimit-Remaining-Day, X-RateLimit-Reset-Day, Retry-After, Location');
      if (ctx.method === 'OPTIONS') {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, PATCH, DELETE');
        ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type');
        ctx.set('Access-Control-Max-Age', '600');
        ctx.status = 204;
        return;
      }
    }
    await next();
  };
}
