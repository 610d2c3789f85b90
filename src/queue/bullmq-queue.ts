import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { JobsRepository } from '../store/jobs.js';
import { isCapacityError, type ExtractionQueue, type JobHandler } from './types.js';

export interface BullmqQueueOptions {
  url: string;
  jobs: JobsRepository;
  concurrency: number;
  maxAttempts: number;
  /** Lock of a job while a worker holds it, renewed at half this; an unrenewed lock marks the job stalled. */
  stalledMs: number;
  logger: Logger;
}

const QUEUE_NAME = 'docex-extractions';
/** BullMQ waits for Redis without bound; a request that queues waits this long at most, then gets 503. */
const ENQUEUE_TIMEOUT_MS = 5_000;

/** Waits for `promise` at most `ms`; whether it settled in time. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return settled;
}

interface Payload {
  extraction_id: string;
}

/** BullMQ wants its own connections, with no limit on a command's retries (its blocking reads wait). */
function connection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
}

/**
 * The queue with Redis: BullMQ carries the job ids (the files stay in the database's
 * `extraction_jobs`, so Redis never holds documents), takes them to workers in any process, retries
 * a job whose worker failed with exponential backoff, and gives a job whose worker died (its lock not
 * renewed) to another worker. After `maxAttempts` the extraction is failed with `interrupted`.
 */
export async function bullmqQueue(options: BullmqQueueOptions): Promise<ExtractionQueue> {
  const { jobs, logger } = options;
  const producer = connection(options.url);
  const queue = new Queue<Payload>(QUEUE_NAME, {
    connection: producer,
    defaultJobOptions: {
      attempts: options.maxAttempts,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3600 },
    },
  });
  queue.on('error', (err) => logger.warn({ err: { message: err.message } }, 'queue connection error'));
  let worker: Worker<Payload> | null = null;
  let workerConnection: Redis | null = null;

  return {
    kind: 'redis',
    async enqueue(extractionId: string) {
      // The extraction id is the job id, so a job is queued once whatever happens.
      const added = queue.add('extract', { extraction_id: extractionId }, { jobId: extractionId });
      let failure: unknown = null;
      const inTime = await within(added.catch((err: unknown) => (failure = err)), ENQUEUE_TIMEOUT_MS);
      if (!inTime || failure) throw failure ?? new Error(`Redis did not take the job within ${ENQUEUE_TIMEOUT_MS} ms`);
    },
    work(handler: JobHandler) {
      if (worker) return;
      workerConnection = connection(options.url);
      worker = new Worker<Payload>(
        QUEUE_NAME,
        async (job: Job<Payload>, token?: string) => {
          const record = await jobs.get(job.data.extraction_id);
          // Already finished by a worker whose completion Redis did not hear of.
          if (!record) return;
          try {
            await handler.run(record);
          } catch (err) {
            if (!isCapacityError(err) || !token) throw err;
            // The OCR queue is full: try again in a second, without using up an attempt.
            await job.moveToDelayed(Date.now() + 1000, token);
            throw new DelayedError();
          }
          await jobs.remove(record.extraction_id);
        },
        {
          connection: workerConnection,
          concurrency: options.concurrency,
          lockDuration: options.stalledMs,
          stalledInterval: options.stalledMs,
          maxStalledCount: Math.max(1, options.maxAttempts - 1),
        },
      );
      worker.on('error', (err) => logger.warn({ err: { message: err.message } }, 'queue worker error'));
      worker.on('stalled', (jobId) => logger.warn({ extraction_id: jobId }, 'extraction job stalled (its worker stopped); queued again'));
      worker.on('failed', (job, err) => {
        if (!job) return;
        const last = job.attemptsMade >= (job.opts.attempts ?? 1) || /stalled/i.test(err.message);
        logger.warn({ extraction_id: job.data.extraction_id, attempt: job.attemptsMade, err: { message: err.message }, last }, 'extraction job failed');
        if (!last) return;
        void (async () => {
          const record = await jobs.get(job.data.extraction_id);
          if (!record) return;
          await handler.abandon(record, `The extraction failed ${job.attemptsMade || 1} times (its worker stopped or failed: ${err.message}); send the document again.`);
          await jobs.remove(record.extraction_id);
        })().catch((e: unknown) => logger.error({ err: e, extraction_id: job.data.extraction_id }, 'could not fail an abandoned extraction'));
      });
    },
    async waiting() {
      const counts = await queue.getJobCounts('waiting', 'delayed', 'prioritized');
      return Object.values(counts).reduce((a, b) => a + b, 0);
    },
    async close(timeoutMs) {
      // A worker closing waits for its running jobs; past the timeout they are left for another worker
      // to take once their locks expire. BullMQ's close waits for Redis without bound, so while Redis is
      // unreachable each step is cut short and the connections are dropped.
      if (worker && !(await within(worker.close(), timeoutMs))) await within(worker.close(true), 1000);
      await within(queue.close(), 1000);
      for (const c of [producer, workerConnection]) c?.disconnect();
    },
  };
}
