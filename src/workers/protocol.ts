import { ApiError, DocumentError, type DocumentErrorCode, type ErrorCode } from '../errors.js';

/** Messages between a thread and the thread that started it. */
export interface Request {
  id: number;
  type: string;
  payload: unknown;
}

export interface SerializedError {
  name: string;
  message: string;
  code?: DocumentErrorCode | ErrorCode;
  pages?: number;
  headers?: Record<string, string>;
}

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/** Sent once by a worker when its entry has loaded and it can take requests. */
export interface Ready {
  ready: true;
}

/** An error as it crosses threads: a document's failure and an API error (a full queue's 503 with its Retry-After) keep what they are. */
export function serializeError(err: unknown): SerializedError {
  if (err instanceof DocumentError) return { name: 'DocumentError', message: err.message, code: err.code, pages: err.pages };
  if (err instanceof ApiError) return { name: 'ApiError', message: err.message, code: err.code, headers: err.headers };
  return { name: (err as Error)?.name ?? 'Error', message: (err as Error)?.message ?? String(err) };
}

export function reviveError(error: SerializedError): Error {
  if (error.name === 'DocumentError') return new DocumentError(error.code as DocumentErrorCode, error.message, error.pages);
  if (error.name === 'ApiError') return new ApiError(error.code as ErrorCode, error.message, error.headers);
  const err = new Error(error.message);
  err.name = error.name;
  return err;
}
