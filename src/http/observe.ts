import type { Middleware } from 'koa';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';

/** Access log line and request metrics, labelled by operationId (bounded cardinality, unlike raw paths). */
export function observe(logger: Logger, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const status = ctx.status;
      const labels = { operation: ctx.state.operationId ?? 'unmatched', status: String(status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      logger.info(
        { request_id: ctx.state.requestId, method: ctx.method, path: ctx.path, status, ms: Math.round(seconds * 1000), key_id: ctx.state.principal?.key.id },
        'request',
      );
    }
  };
}
