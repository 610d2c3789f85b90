import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { serviceUnavailable } from '../errors.js';
import { reviveError, type Ready, type Reply } from './protocol.js';
import { startThread } from './thread.js';

export interface WorkerPoolOptions {
  /** Names the pool in logs and in its 503 message, e.g. "PDF". */
  name: string;
  /**
   * The worker's entry, which calls `serve` (./serve.ts), named as an import names a module: `.js`,
   * which is the compiled file in dist/ and stands for its `.ts` source when running from sources.
   */
  entry: URL;
  /** JavaScript modules (package specifiers) to load before the entry, and before the TypeScript loader, see ./bootstrap.mjs. */
  preload?: string[];
  workers: number;
  /** New jobs allowed to wait for a worker; one more is refused with 503. */
  queueMax: number;
  /** Old-generation heap of each worker, MB; a worker that needs more dies and is replaced. */
  heapMb: number;
  logger?: Logger;
}

export type StopReason = 'timeout' | 'out_of_memory' | 'crashed' | 'closed';

/** A job's worker was stopped under it: the job overran its time, ran out of heap, the worker died, or the pool closed. */
export class WorkerStopped extends Error {
  constructor(
    readonly reason: StopReason,
    message: string,
  ) {
    super(message);
    this.name = 'WorkerStopped';
  }
}

export interface Job {
  /**
   * Sends a request to the job's worker; resolves with the answer, or rejects with the handler's error
   * or a WorkerStopped. The buffers in `transfer` are moved to the worker, not copied, and are unusable here afterwards.
   */
  call<T>(type: string, payload: unknown, transfer?: ArrayBuffer[]): Promise<T>;
  /** What the worker last wrote of its progress; still readable after the worker was stopped. */
  readonly progress: Int32Array;
  /** Hands the worker back to the pool once every request of the job has been answered. */
  release(): void;
}

export interface WorkerPool {
  /**
   * A worker for one job, which runs nothing else until the job is released. The worker may spend
   * at most `budgetMs` on the job's requests in all (time it waits for the next request does not
   * count); past that it is terminated and the job's requests fail with WorkerStopped('timeout').
   * A `continuation` (a further job for a document already admitted) is never refused for a full
   * queue, so that a document is not failed half-way.
   */
  acquire(budgetMs: number, options?: { continuation?: boolean }): Promise<Job>;
  /** True once at least one worker can take a job. */
  ready(): boolean;
  /** Jobs waiting for a worker. */
  queueDepth(): number;
  /** Workers replaced after an overrun or a death since the pool started. */
  restarts(): number;
  close(): Promise<void>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Running {
  slot: Slot;
  budgetMs: number;
  pending: Map<number, Pending>;
  remainingMs: number;
  /** When the worker last went from idle to working on one of the job's requests. */
  busySince: number;
  timer: NodeJS.Timeout | null;
  started: number;
  released: boolean;
  stopped: WorkerStopped | null;
}

interface Slot {
  state: 'starting' | 'idle' | 'busy' | 'down';
  worker: Worker | null;
  progress: Int32Array;
  job: Running | null;
}

interface Waiter {
  budgetMs: number;
  resolve(job: Job): void;
  reject(err: Error): void;
}

const RETRY_START_MS = 5_000;
/** Int32 slots a worker shares with the main thread to say what it is doing. */
const PROGRESS_SLOTS = 4;

let nextRequestId = 1;

/**
 * A fixed set of worker threads, each with a heap cap, running one job at a time under a time
 * budget. A worker whose job overruns is terminated; one that runs out of heap or dies is
 * replaced; either way only that job fails. This is what keeps work on untrusted input (PDF
 * parsing, tenants' regular expressions) from stalling or exhausting the process that answers
 * every other tenant. Idle workers do not keep the process alive.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { logger, name } = options;
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers) }, () => ({ state: 'down', worker: null, progress: new Int32Array(PROGRESS_SLOTS), job: null }));
  const waiting: Waiter[] = [];
  let closed = false;
  let replaced = 0;
  /** Running mean of a job's time, for an honest Retry-After. */
  let meanJobMs = 1_000;

  function start(slot: Slot): void {
    const shared = new SharedArrayBuffer(PROGRESS_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    const worker = startThread(options.entry, { preload: options.preload, data: { progress: shared }, heapMb: options.heapMb });
    worker.unref();
    slot.state = 'starting';
    slot.worker = worker;
    slot.progress = new Int32Array(shared);
    worker.on('message', (message: Reply | Ready) => {
      if (slot.worker !== worker) return;
      if ('ready' in message) {
        slot.state = 'idle';
        dispatch();
      } else {
        answer(slot, message);
      }
    });
    worker.on('error', (err) => lost(slot, worker, err));
    worker.on('exit', (code) => lost(slot, worker, new Error(`the worker exited with code ${code}`)));
  }

  /** The worker died on its own (not terminated by the pool): its job fails, and a new worker takes its place. */
  function lost(slot: Slot, worker: Worker, err: Error): void {
    if (slot.worker !== worker) return;
    const outOfMemory = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
    const starting = slot.state === 'starting';
    if (slot.job) {
      stop(slot.job, outOfMemory ? new WorkerStopped('out_of_memory', `the job needed more than the ${options.heapMb} MB of heap a ${name} worker has`) : new WorkerStopped('crashed', `the ${name} worker died: ${err.message}`));
    }
    slot.worker = null;
    slot.job = null;
    slot.state = 'down';
    void worker.terminate();
    if (closed) return;
    if (!starting) {
      replaced += 1;
      logger?.warn({ err, pool: name }, 'worker died; replacing it');
      start(slot);
      return;
    }
    logger?.error({ err, pool: name }, 'worker failed to start');
    if (!slots.some((s) => s.state !== 'down')) {
      for (const waiter of waiting.splice(0)) waiter.reject(new WorkerStopped('crashed', `the ${name} workers cannot start: ${err.message}`));
    }
    setTimeout(() => !closed && slot.state === 'down' && start(slot), RETRY_START_MS).unref();
  }

  /** Fails the job's requests; the caller deals with its worker. */
  function stop(job: Running, err: WorkerStopped): void {
    job.stopped = err;
    if (job.timer) clearTimeout(job.timer);
    job.timer = null;
    const pending = [...job.pending.values()];
    job.pending.clear();
    for (const p of pending) p.reject(err);
  }

  function overrun(job: Running): void {
    const { slot } = job;
    const worker = slot.worker;
    stop(job, new WorkerStopped('timeout', `the job took more than its ${job.budgetMs} ms`));
    slot.worker = null;
    slot.job = null;
    slot.state = 'down';
    replaced += 1;
    logger?.warn({ pool: name, budget_ms: job.budgetMs }, 'job overran its time; replacing its worker');
    void worker?.terminate();
    if (!closed) start(slot);
  }

  function answer(slot: Slot, reply: Reply): void {
    const job = slot.job;
    const pending = job?.pending.get(reply.id);
    if (!job || !pending) return;
    job.pending.delete(reply.id);
    if (job.pending.size === 0) pause(job);
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(reviveError(reply.error));
    if (job.released && job.pending.size === 0) finish(job);
  }

  /** The worker has nothing of the job's left to do: its clock stops until the next request. */
  function pause(job: Running): void {
    if (job.timer) clearTimeout(job.timer);
    job.timer = null;
    job.remainingMs -= performance.now() - job.busySince;
  }

  function finish(job: Running): void {
    const { slot } = job;
    if (job.stopped || slot.job !== job) return;
    meanJobMs = meanJobMs * 0.8 + (performance.now() - job.started) * 0.2;
    slot.job = null;
    slot.state = 'idle';
    slot.worker!.unref();
    dispatch();
  }

  function assign(slot: Slot, budgetMs: number): Job {
    const job: Running = { slot, budgetMs, pending: new Map(), remainingMs: budgetMs, busySince: 0, timer: null, started: performance.now(), released: false, stopped: null };
    slot.state = 'busy';
    slot.job = job;
    slot.progress.fill(0);
    // A job in progress keeps the process alive, as any pending I/O would.
    slot.worker!.ref();
    const progress = slot.progress;
    return {
      progress,
      call<T>(type: string, payload: unknown, transfer: ArrayBuffer[] = []): Promise<T> {
        if (job.stopped) return Promise.reject(job.stopped);
        if (job.released) return Promise.reject(new Error(`${name} job already released`));
        return new Promise<T>((resolve, reject) => {
          const id = nextRequestId;
          nextRequestId += 1;
          if (job.pending.size === 0) {
            job.busySince = performance.now();
            job.timer = setTimeout(() => overrun(job), Math.max(0, job.remainingMs));
          }
          job.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
          slot.worker!.postMessage({ id, type, payload }, transfer);
        });
      },
      release() {
        if (job.released) return;
        job.released = true;
        if (job.pending.size === 0) finish(job);
      },
    };
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (!waiting.length) return;
      if (slot.state === 'idle') {
        const waiter = waiting.shift()!;
        waiter.resolve(assign(slot, waiter.budgetMs));
      }
    }
  }

  for (const slot of slots) start(slot);

  return {
    acquire(budgetMs, { continuation = false } = {}) {
      if (closed) return Promise.reject(new WorkerStopped('closed', 'the service is shutting down'));
      const idle = slots.find((s) => s.state === 'idle');
      if (idle && !waiting.length) return Promise.resolve(assign(idle, budgetMs));
      if (!continuation && waiting.length >= options.queueMax) {
        const seconds = Math.max(1, Math.ceil(((waiting.length + slots.length) * meanJobMs) / slots.length / 1000));
        return Promise.reject(serviceUnavailable(`The ${name} queue is full; retry in ${seconds} seconds.`, seconds));
      }
      return new Promise<Job>((resolve, reject) => waiting.push({ budgetMs, resolve, reject }));
    },
    ready: () => slots.some((s) => s.state === 'idle' || s.state === 'busy'),
    queueDepth: () => waiting.length,
    restarts: () => replaced,
    async close() {
      closed = true;
      const stopped = new WorkerStopped('closed', 'the service is shutting down');
      for (const waiter of waiting.splice(0)) waiter.reject(stopped);
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          if (slot.job) stop(slot.job, stopped);
          slot.worker = null;
          slot.job = null;
          slot.state = 'down';
          await worker?.terminate();
        }),
      );
    },
  };
}
