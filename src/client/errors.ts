import type { components } from '../../generated/openapi.js';

export type ErrorCode = components['schemas']['Error']['error']['code'];

/**
 * A non-2xx answer from docex, carrying the error envelope. `code` is one of the documented codes,
 * or `invalid_response` when the body was not the envelope (a proxy's error page, for example).
 */
export class DocexError extends Error {
  readonly code: ErrorCode | 'invalid_response';
  readonly status: number;
  readonly requestId: string | null;
  /** Seconds to wait before retrying, from `Retry-After` (429 and 503); null when absent. */
  readonly retryAfter: number | null;

  constructor(init: { code: ErrorCode | 'invalid_response'; message: string; status: number; requestId: string | null; retryAfter: number | null }) {
    super(init.message);
    this.name = 'DocexError';
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

/** Seconds from a `Retry-After` header: delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

function isEnvelope(body: unknown): body is components['schemas']['Error'] {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

export function toDocexError(body: unknown, response: Response): DocexError {
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  const headerRequestId = response.headers.get('x-request-id');
  if (isEnvelope(body)) {
    return new DocexError({ code: body.error.code, message: body.error.message, status: response.status, requestId: body.request_id ?? headerRequestId, retryAfter });
  }
  return new DocexError({
    code: 'invalid_response',
    message: `HTTP ${response.status} ${response.statusText} without a docex error body`,
    status: response.status,
    requestId: headerRequestId,
    retryAfter,
  });
}
