import type { Middleware } from 'koa';
import getRawBody from 'raw-body';
import { ApiError, invalidRequest } from '../errors.js';

/** 20 MB as base64 is 27,962,028 characters; the rest leaves room for the other members. */
export const MAX_BODY_BYTES = 28 * 1024 * 1024;

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Reads a JSON body, refusing it while streaming once it passes the limit (never buffering more).
 * Runs after authentication so that an anonymous client cannot make the server buffer 28 MiB.
 */
export const jsonBody: Middleware = async (ctx, next) => {
  if (!METHODS_WITH_BODY.has(ctx.method)) return next();
  const length = ctx.request.length;
  const hasBody = ctx.req.headers['transfer-encoding'] !== undefined || (length !== undefined && length > 0);
  if (!hasBody) return next();
  if (!ctx.is('application/json')) {
    throw new ApiError('unsupported_media_type', `Send the body as application/json (got ${ctx.get('Content-Type') || 'no Content-Type'}).`);
  }
  let raw: string;
  try {
    raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length, encoding: 'utf8' });
  } catch (err) {
    const e = err as { type?: string };
    if (e.type === 'entity.too.large') {
      // Discard the rest as it arrives (nothing is kept): closing with unread data would reset the
      // connection, and the client would see a broken pipe instead of this answer.
      ctx.req.resume();
      throw new ApiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes (28 MiB).`);
    }
    if (e.type === 'request.aborted') throw invalidRequest('The request body was cut off before it ended.');
    if (e.type === 'request.size.invalid') throw invalidRequest('The request body is shorter or longer than its Content-Length.');
    if (e.type === 'encoding.unsupported') throw invalidRequest('The request body must be UTF-8.');
    throw err;
  }
  try {
    ctx.request.body = JSON.parse(raw);
  } catch (err) {
    throw invalidRequest(`The request body is not valid JSON: ${(err as Error).message}`);
  }
  await next();
};
