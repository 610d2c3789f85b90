import type { components } from '../generated/openapi.js';

export type ErrorCode = components['schemas']['Error']['error']['code'];

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  file_too_large: 413,
  unsupported_media_type: 415,
  invalid_file: 422,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
};

/** An error that is answered with the error envelope; its status follows from its code. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS[code];
  }
}

export const invalidRequest = (message: string) => new ApiError('invalid_request', message);
export const invalidFile = (message: string) => new ApiError('invalid_file', message);
export const notFound = (message: string) => new ApiError('not_found', message);
export const serviceUnavailable = (message: string, retryAfterSeconds: number) =>
  new ApiError('service_unavailable', message, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/** Why a readable request produced a `failed` extraction (stored, answered with 201). */
export type DocumentErrorCode =
  | 'unreadable_document'
  | 'encrypted_document'
  | 'too_many_pages'
  | 'image_too_large'
  | 'no_text_found'
  | 'ocr_failed'
  | 'timeout'
  | 'interrupted'
  /** Reading the document would pass a resource limit: decoded bytes, image pixels, time or memory. */
  | 'document_too_complex'
  /** A template's pattern overran its time on the document. */
  | 'template_timeout';

export class DocumentError extends Error {
  constructor(
    readonly code: DocumentErrorCode,
    message: string,
    /** Pages processed before the failure, which are counted as credits. */
    readonly pages?: number,
  ) {
    super(message);
    this.name = 'DocumentError';
  }
}
