import type { Context, Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { ApiError, invalidRequest } from '../errors.js';

/** 20 MB as base64 is 27,962,028 characters; the rest leaves room for the other members. */
export const MAX_BODY_BYTES = 28 * 1024 * 1024;

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** The parser's failures (raw-body's, under co-body) as the API's error envelope. */
function bodyError(err: unknown, ctx: Context): never {
  const e = err as { type?: string; name?: string; message?: string };
  switch (e.type) {
    case 'entity.too.large':
      // Discard the rest as it arrives (nothing is kept): closing with unread data would reset the
      // connection, and the client would see a broken pipe instead of this answer.
      ctx.req.resume();
      throw new ApiError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes (28 MiB).`);
    case 'request.aborted':
      throw invalidRequest('The request body was cut off before it ended.');
    case 'request.size.invalid':
      throw invalidRequest('The request body is shorter or longer than its Content-Length.');
    case 'encoding.unsupported':
      throw invalidRequest('The request body must be UTF-8.');
  }
  if (e.name === 'SyntaxError') throw invalidRequest(`The request body is not valid JSON: ${e.message}`);
  throw err;
}

const parse = bodyParser({
  enableTypes: ['json'],
  jsonLimit: MAX_BODY_BYTES,
  // Any JSON value is read; the operation's schema then says what the body must be ("body: must be object").
  jsonStrict: false,
  encoding: 'utf-8',
  onError: bodyError,
});

/**
 * Reads a JSON body with koa's body parser, which refuses it while streaming once it passes the
 * limit (never buffering more). Runs after authentication so that an anonymous client cannot make
 * the server buffer 28 MiB. Other media types and compressed bodies are refused before reading.
 */
export const jsonBody: Middleware = async (ctx, next) => {
  if (!METHODS_WITH_BODY.has(ctx.method)) return next();
  const length = ctx.request.length;
  const hasBody = ctx.req.headers['transfer-encoding'] !== undefined || (length !== undefined && length > 0);
  if (!hasBody) return next();
  if (!ctx.is('application/json')) {
    throw new ApiError('unsupported_media_type', `Send the body as application/json (got ${ctx.get('Content-Type') || 'no Content-Type'}).`);
  }
  const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    throw new ApiError('unsupported_media_type', `Send the body uncompressed (got Content-Encoding: ${encoding}).`);
  }
  await parse(ctx, next);
};
