import type { DocumentErrorCode } from '../errors.js';

/** Messages between a pool and its workers. */
export interface Request {
  id: number;
  type: string;
  payload: unknown;
}

export interface SerializedError {
  name: string;
  message: string;
  code?: DocumentErrorCode;
  pages?: number;
}

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

/** Sent once by a worker when its entry has loaded and it can take requests. */
export interface Ready {
  ready: true;
}
