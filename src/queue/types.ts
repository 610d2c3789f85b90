import type { JobRecord } from '../store/jobs.js';

export type { JobRecord };

/** What a worker does with a job; the queue decides what happens when it throws. */
export interface JobHandler {
  /** Extracts and stores the outcome. Throws when the job should run again later. */
  run(job: JobRecord): Promise<void>;
  /** Stores the extraction as failed once its attempts are used up; `reason` says why. */
  abandon(job: JobRecord, reason: string): Promise<void>;
}

/** The queue of asynchronous extractions: the database without Redis, BullMQ with it. */
export interface ExtractionQueue {
  readonly kind: 'database' | 'redis';
  /** Hands to the workers an admitted extraction whose record (`processing`) and job are stored already. */
  enqueue(extractionId: string): Promise<void>;
  /** Starts taking jobs in this process (not on an API-only instance). */
  work(handler: JobHandler): void;
  /** Jobs waiting for a worker. */
  waiting(): Promise<number>;
  /** Stops taking jobs and waits (at most `timeoutMs`) for those running; unfinished ones are taken again later. */
  close(timeoutMs: number): Promise<void>;
}

/** Thrown by a handler when the work could not start for lack of capacity: retried without counting an attempt. */
export function isCapacityError(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'service_unavailable';
}

/** Delay before attempt `attempt + 1` of a job that failed: 1, 2, 4, ... seconds, at most a minute. */
export function retryDelayMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
}
