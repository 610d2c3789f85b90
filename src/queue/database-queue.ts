import type { Logger } from '../logger.js';
import type { JobsRepository } from '../store/jobs.js';
import { isCapacityError, retryDelayMs, type ExtractionQueue, type JobHandler, type JobRecord } from './types.js';

export interface DatabaseQueueOptions {
  jobs: JobsRepository;
  instanceId: string;
  /** Jobs this process runs at once. */
  concurrency: number;
  /** How often an idle worker looks for jobs enqueued by other processes. */
  pollMs: number;
  /** Claims of an instance silent this long are taken to be abandoned (INSTANCE_STALE_MS). */
  staleMs: number;
  maxAttempts: number;
  logger: Logger;
}

/**
 * The queue without Redis: jobs are rows of the database, so a restart (or, on PostgreSQL, another
 * instance) takes up the work a stopped process left. A job enqueued here (its row stored with its
 * extraction's) wakes this process's workers at once; other processes find it on their next poll.
 */
export function databaseQueue(options: DatabaseQueueOptions): ExtractionQueue {
  const { jobs, logger } = options;
  let handler: JobHandler | null = null;
  let closing = false;
  let running = 0;
  const inFlight = new Set<Promise<void>>();
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;
  let idle: NodeJS.Timeout | undefined;

  const wakeUp = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  async function execute(job: JobRecord): Promise<void> {
    try {
      if (job.attempts > options.maxAttempts) {
        await handler!.abandon(job, `The extraction was interrupted ${job.attempts - 1} times (its worker stopped or failed); send the document again.`);
      } else {
        await handler!.run(job);
      }
      await jobs.remove(job.extraction_id);
    } catch (err) {
      // A stopping process leaves its claims: the next start or another instance takes them.
      if (closing) return;
      const capacity = isCapacityError(err);
      if (!capacity) logger.warn({ err, extraction_id: job.extraction_id, attempt: job.attempts }, 'extraction job failed; it will be retried');
      const delay = capacity ? 1000 : retryDelayMs(job.attempts);
      // Should this fail too, the claim stays and is freed once this instance is gone.
      await jobs.putBack(job.extraction_id, Date.now() + delay, !capacity).catch((e: unknown) => logger.error({ err: e }, 'could not put a job back'));
    }
  }

  async function run(): Promise<void> {
    while (!closing) {
      if (running >= options.concurrency) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      let job: JobRecord | undefined;
      try {
        job = await jobs.claim(options.instanceId, Date.now(), Date.now() - options.staleMs);
      } catch (err) {
        logger.error({ err }, 'could not take a job from the queue');
      }
      if (!job) {
        if (closing) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          idle = setTimeout(wakeUp, options.pollMs);
        });
        clearTimeout(idle);
        continue;
      }
      running += 1;
      const done = execute(job).finally(() => {
        running -= 1;
        inFlight.delete(done);
        wakeUp();
      });
      inFlight.add(done);
    }
  }

  return {
    kind: 'database',
    async enqueue() {
      wakeUp();
    },
    work(h) {
      handler = h;
      loop ??= run();
    },
    waiting: () => jobs.waiting(),
    async close(timeoutMs) {
      closing = true;
      wakeUp();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(inFlight), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    },
  };
}
