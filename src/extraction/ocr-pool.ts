import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker as Thread } from 'node:worker_threads';
import type { Logger } from 'pino';
import type Tesseract from 'tesseract.js';
import { DocumentError, serviceUnavailable } from '../errors.js';
import { toWords } from './ocr-words.js';
import type { GrayImage, Word } from './types.js';

export interface OcrPoolOptions {
  workers: number;
  /** Jobs allowed to wait for a worker; one more and the request is refused with 503. */
  queueMax: number;
  timeoutMs: number;
  logger?: Logger;
}

export interface RecognizeOptions {
  /**
   * A further page of a document whose earlier page was admitted. It is never refused, so a
   * document is not failed half-way; each document has at most one page waiting at a time.
   */
  continuation?: boolean;
}

export interface OcrPool {
  recognize(image: GrayImage, options?: RecognizeOptions): Promise<Word[]>;
  /** True once at least one worker can take a job. */
  ready(): boolean;
  /** Jobs waiting for a worker. */
  queueDepth(): number;
  /** Workers replaced after a timeout or crash since the pool started. */
  restarts(): number;
  close(): Promise<void>;
}

interface Job {
  image: GrayImage;
  resolve(words: Word[]): void;
  reject(err: Error): void;
}

interface Slot {
  state: 'starting' | 'idle' | 'busy' | 'down';
  worker: Tesseract.Worker | null;
  /** Fails the running job when its worker dies underneath it or the pool closes. */
  abort: ((err: Error) => void) | null;
}

const RETRY_START_MS = 5_000;

const require = createRequire(import.meta.url);
const langPath = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');

/**
 * A fixed set of tesseract.js workers (each a worker thread, so OCR never blocks the event loop),
 * started when the pool is created and reused. A worker that overruns the page timeout, errors or dies is terminated
 * and replaced, so one bad page cannot take the pool down with it.
 */
export function createOcrPool(options: OcrPoolOptions): OcrPool {
  const { logger } = options;
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers) }, () => ({ state: 'down', worker: null, abort: null }));
  const queue: Job[] = [];
  let closed = false;
  let replaced = 0;
  /** Running mean of a page's OCR time, for an honest Retry-After. */
  let meanJobMs = 1_500;
  let tesseract: Promise<typeof Tesseract> | null = null;

  async function start(slot: Slot): Promise<void> {
    slot.state = 'starting';
    try {
      tesseract ??= import('tesseract.js').then((m) => (m.default ?? m) as typeof Tesseract);
      const { createWorker, OEM } = await tesseract;
      const worker = await createWorker('eng', OEM.LSTM_ONLY, {
        langPath,
        gzip: true,
        cacheMethod: 'none',
        // Without a handler tesseract.js rethrows a job's failure inside its message listener, which would crash the process.
        errorHandler: (err: unknown) => logger?.warn({ err }, 'OCR worker reported an error'),
      });
      await worker.setParameters({ user_defined_dpi: '300' });
      if (closed) {
        await worker.terminate();
        return;
      }
      const thread = (worker as unknown as { worker: Thread }).worker;
      const crashed = (err: Error) => {
        if (slot.worker !== worker) return;
        logger?.error({ err }, 'OCR worker thread died');
        const abort = slot.abort;
        replace(slot);
        abort?.(new DocumentError('ocr_failed', `OCR failed: ${err.message}`));
      };
      thread.on('error', crashed);
      thread.on('exit', (code) => crashed(new Error(`OCR worker thread exited with code ${code}`)));
      slot.worker = worker;
      slot.state = 'idle';
    } catch (err) {
      slot.state = 'down';
      slot.worker = null;
      logger?.error({ err }, 'OCR worker failed to start');
      if (!slots.some((s) => s.state !== 'down')) failQueued(new DocumentError('ocr_failed', `OCR could not start: ${(err as Error)?.message ?? err}`));
      if (!closed) setTimeout(() => !closed && slot.state === 'down' && start(slot).then(dispatch), RETRY_START_MS).unref();
      return;
    }
    dispatch();
  }

  function replace(slot: Slot): void {
    const old = slot.worker;
    slot.worker = null;
    slot.abort = null;
    slot.state = 'down';
    replaced += 1;
    old?.terminate().catch(() => undefined);
    if (!closed) void start(slot);
  }

  function failQueued(err: Error): void {
    for (const job of queue.splice(0)) job.reject(err);
  }

  function run(slot: Slot, job: Job): void {
    const worker = slot.worker!;
    slot.state = 'busy';
    const started = Date.now();
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => {
      finish(() => {
        logger?.warn({ timeoutMs: options.timeoutMs }, 'OCR page timed out; replacing its worker');
        replace(slot);
        job.reject(new DocumentError('timeout', `OCR of a page took longer than ${options.timeoutMs} ms and was stopped.`));
      });
    }, options.timeoutMs);
    slot.abort = (err) => finish(() => job.reject(err));
    worker.recognize(job.image.pgm, {}, { blocks: true, text: false }).then(
      (result) =>
        finish(() => {
          slot.abort = null;
          slot.state = 'idle';
          meanJobMs = meanJobMs * 0.8 + (Date.now() - started) * 0.2;
          job.resolve(toWords(result.data, job.image));
          dispatch();
        }),
      (err: unknown) =>
        finish(() => {
          replace(slot);
          job.reject(new DocumentError('ocr_failed', `OCR failed: ${(err as Error)?.message ?? String(err)}`));
        }),
    );
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (!queue.length) return;
      if (slot.state === 'idle') run(slot, queue.shift()!);
    }
  }

  for (const slot of slots) void start(slot);

  return {
    recognize(image, { continuation = false } = {}) {
      if (closed) return Promise.reject(new DocumentError('interrupted', 'The service is shutting down.'));
      const idle = slots.some((s) => s.state === 'idle');
      if (!continuation && !idle && queue.length >= options.queueMax) {
        const waitSeconds = ((queue.length + slots.length) * meanJobMs) / slots.length / 1000;
        const seconds = Math.max(1, Math.ceil(waitSeconds));
        return Promise.reject(serviceUnavailable(`The OCR queue is full; retry in ${seconds} seconds.`, seconds));
      }
      return new Promise<Word[]>((resolve, reject) => {
        queue.push({ image, resolve, reject });
        dispatch();
      });
    },
    ready: () => slots.some((s) => s.state === 'idle' || s.state === 'busy'),
    queueDepth: () => queue.length,
    restarts: () => replaced,
    async close() {
      closed = true;
      const interrupted = new DocumentError('interrupted', 'The service is shutting down.');
      failQueued(interrupted);
      for (const slot of slots) slot.abort?.(interrupted);
      // A job handed to tesseract.js in this same tick has not been posted to its thread yet;
      // terminating first would make tesseract.js post to a dead worker and reject unhandled.
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          slot.worker = null;
          slot.abort = null;
          slot.state = 'down';
          await worker?.terminate().catch(() => undefined);
        }),
      );
    },
  };
}
