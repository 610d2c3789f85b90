import crypto from 'node:crypto';
import type { Middleware } from 'koa';
import type { Operation } from 'openapi-backend';
import { ApiError, invalidRequest } from '../errors.js';
import type { IdempotencyRepository } from '../store/idempotency.js';
import type { Clock } from '../limits/rate-limiter.js';

const HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;
/** Printable ASCII, as header values travel unchanged through proxies only then. */
const KEY_PATTERN = /^[\x20-\x7e]+$/;
/** Headers of the first answer that a replay repeats. */
const REPLAYED_HEADERS = ['Location', 'Preference-Applied'];

/** Whether the document declares the `Idempotency-Key` header for this operation. */
function acceptsKey(operation: Operation | undefined): boolean {
  return (operation?.parameters ?? []).some((p) => 'in' in p && p.in === 'header' && p.name.toLowerCase() === HEADER);
}

/** What makes two requests "the same": the operation and the JSON body, whatever its whitespace. */
function fingerprint(operationId: string, body: unknown): string {
  return crypto.hash('sha256', `${operationId}\n${JSON.stringify(body ?? null)}`, 'hex');
}

/**
 * Stripe-style idempotent retries for the operations that declare `Idempotency-Key`: per API key, the
 * first request under a key runs and its 2xx answer is kept for 24 hours; a later request with the
 * same key and body gets that answer again (`Idempotent-Replayed: true`) without running, one with
 * another body or while the first still runs gets 409. An error answer is not kept, so the client
 * can retry with the same key. Runs after authentication, limits and body parsing: a replay is a
 * request like any other for the rate limits.
 */
export function idempotency(repository: IdempotencyRepository, clock: Clock): Middleware {
  return async (ctx, next) => {
    const raw = ctx.get(HEADER);
    const principal = ctx.state.principal;
    if (!raw || !principal || !acceptsKey(ctx.state.operation)) return next();
    if (raw.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(raw)) {
      throw invalidRequest(`header.idempotency-key: must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters (got ${raw.length})`);
    }
    const apiKeyId = principal.key.id;
    const claim = await repository.claim(apiKeyId, raw, fingerprint(ctx.state.operationId!, ctx.request.body), clock.now());
    if (claim.state === 'mismatch') {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with another request body or operation in the last 24 hours; use a new key for a new request.');
    }
    if (claim.state === 'running') {
      throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry once it has been answered.', { 'Retry-After': '1' });
    }
    if (claim.state === 'done') {
      const { status, headers, body } = claim.response;
      ctx.status = status;
      ctx.set(headers);
      ctx.set('Idempotent-Replayed', 'true');
      ctx.body = body && typeof body === 'object' && 'request_id' in body ? { ...body, request_id: ctx.state.requestId } : body;
      return;
    }
    try {
      await next();
    } catch (err) {
      await repository.release(apiKeyId, raw).catch(() => undefined);
      throw err;
    }
    if (ctx.status >= 200 && ctx.status < 300) {
      const headers = Object.fromEntries(REPLAYED_HEADERS.filter((h) => ctx.response.get(h)).map((h) => [h, ctx.response.get(h)]));
      await repository.complete(apiKeyId, raw, { status: ctx.status, headers, body: ctx.body });
    } else {
      await repository.release(apiKeyId, raw);
    }
  };
}
