import type { Middleware } from 'koa';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { toApiError } from './errors.js';

/** Access log line and request metrics, labelled by operationId (bounded cardinality, unlike raw paths). */
export function observe(logger: Logger, metrics: Metrics): Middleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    // The error mapper sits outside this middleware, so a thrown error's status is worked out here the
    // way the mapper will (otherwise every error would be recorded as Koa's default 404).
    let status: number | undefined;
    try {
      await next();
    } catch (err) {
      status = toApiError(err)?.status ?? 500;
      throw err;
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      status ??= ctx.status;
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
