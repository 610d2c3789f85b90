import type { Middleware } from 'koa';
import { ApiError } from '../errors.js';
import { isDatabaseUnavailable } from '../store/db.js';
import type { Logger } from '../logger.js';

/** The one place where thrown errors become the error envelope. */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (isDatabaseUnavailable(err)) {
    return new ApiError('service_unavailable', 'The database is unavailable; retry shortly.', { 'Retry-After': '5' });
  }
  return undefined;
}

/** The error envelope every non-2xx response carries. */
export function envelope(apiError: ApiError, requestId: string) {
  return { error: { code: apiError.code, message: apiError.message }, request_id: requestId };
}

export function errorMapper(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      let apiError = toApiError(err);
      if (!apiError) {
        logger.error({ err, request_id: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unexpected error');
        apiError = new ApiError('internal_error', 'An unexpected error occurred. Quote the request id when reporting it.');
      } else if (apiError.status >= 500) {
        logger.warn({ err, request_id: ctx.state.requestId, code: apiError.code }, apiError.message);
      }
      ctx.status = apiError.status;
      for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
      ctx.body = envelope(apiError, ctx.state.requestId);
    }
  };
}
