import { fileURLToPath } from 'node:url';
import type { Worker as Thread } from 'node:worker_threads';
import type { Logger } from 'pino';
import type Tesseract from 'tesseract.js';
import { DocumentError, serviceUnavailable } from '../errors.js';
import { encodePgm } from './image.js';
import { languageDataDir, tesseractLanguages, type OcrLanguage } from './ocr-languages.js';
import { toWords } from './ocr-words.js';
import type { GrayImage, Word } from './types.js';

export interface OcrPoolOptions {
  workers: number;
  /** Jobs allowed to wait for a worker; one more and the request is refused with 503. */
  queueMax: number;
  timeoutMs: number;
  /** The languages a worker is started with, and a job reads with unless it names others; English by default. */
  languages?: OcrLanguage[];
  logger?: Logger;
}

export interface RecognizeOptions {
  /**
   * A further page of a document whose earlier page was admitted. It is never refused, so a
   * document is not failed half-way; each document has at most one page waiting at a time.
   */
  continuation?: boolean;
  /** The languages to read the page in, the likeliest first; the pool's own by default. */
  languages?: OcrLanguage[];
  /** How tesseract finds the text: as one block of lines (the default), or as words scattered anywhere on the page. */
  layout?: OcrLayout;
}

export type OcrLayout = 'block' | 'sparse';

/** tesseract's page segmentation mode for each layout: 6 (a single uniform block of text) and 11 (sparse text, no order). */
const SEGMENTATION = { block: '6', sparse: '11' } as Record<OcrLayout, Tesseract.PSM>;

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
  /** tesseract's name of the languages to read in: `deu+eng`. */
  languages: string;
  layout: OcrLayout;
  resolve(words: Word[]): void;
  reject(err: Error): void;
}

interface Slot {
  state: 'starting' | 'idle' | 'busy' | 'down';
  worker: Tesseract.Worker | null;
  /** The languages the worker's models are loaded for, in tesseract's naming. */
  languages: string;
  /** The layout the worker's parameters are set for. */
  layout: OcrLayout;
  /** Fails the running job when its worker dies underneath it or the pool closes. */
  abort: ((err: Error) => void) | null;
}

const RETRY_START_MS = 5_000;

/** Each worker's thread: tesseract.js's own, at a lower CPU priority than the event loop. */
const OCR_THREAD = fileURLToPath(new URL('./ocr-thread.mjs', import.meta.url));

/**
 * A small made-up line of ink, read once by each worker as it starts: the first page a worker
 * reads pays for setting its recognizer up, and that should not be a user's page.
 */
function warmUpPage(): Buffer {
  const width = 160;
  const height = 48;
  const gray = Buffer.alloc(width * height, 255);
  for (let x = 16; x < 144; x += 1) {
    if (x % 12 >= 7) continue;
    for (let y = 14; y < 34; y += 1) gray[y * width + x] = 0;
  }
  return encodePgm(gray, width, height).pgm;
}

/** tesseract's parameters for every page: the models' resolution, as rendered pages and prepared images are about 300 dpi. */
const parameters = (layout: OcrLayout) => ({ user_defined_dpi: '300', tessedit_pageseg_mode: SEGMENTATION[layout] });

/**
 * A fixed set of tesseract.js workers (each a worker thread, so OCR never blocks the event loop),
 * started when the pool is created and reused. A worker that overruns the page timeout, errors or dies is terminated
 * and replaced, so one bad page cannot take the pool down with it.
 */
export function createOcrPool(options: OcrPoolOptions): OcrPool {
  const { logger } = options;
  const defaultLanguages = options.languages ?? ['en'];
  const startLanguages = tesseractLanguages(defaultLanguages);
  const langPath = languageDataDir();
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers) }, () => ({ state: 'down', worker: null, languages: startLanguages, layout: 'block', abort: null }));
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
      const worker = await createWorker(startLanguages, OEM.LSTM_ONLY, {
        langPath,
        workerPath: OCR_THREAD,
        gzip: true,
        cacheMethod: 'none',
        // Without a handler tesseract.js rethrows a job's failure inside its message listener, which would crash the process.
        errorHandler: (err: unknown) => logger?.warn({ err }, 'OCR worker reported an error'),
      });
      await worker.setParameters(parameters('block'));
      await worker.recognize(warmUpPage());
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
      slot.languages = startLanguages;
      slot.layout = 'block';
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
    // Another language set is loaded into the worker that is free rather than kept waiting for one that has it.
    const loaded =
      slot.languages === job.languages && slot.layout === job.layout
        ? Promise.resolve()
        : tesseract!
            .then(({ OEM }) => (slot.languages === job.languages ? undefined : worker.reinitialize(job.languages, OEM.LSTM_ONLY)))
            .then(async () => {
              slot.languages = job.languages;
              await worker.setParameters(parameters(job.layout));
              slot.layout = job.layout;
            });
    loaded.then(() => worker.recognize(job.image.pgm, {}, { blocks: true, text: false })).then(
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
    for (let idle = slots.filter((s) => s.state === 'idle'); idle.length && queue.length; idle = slots.filter((s) => s.state === 'idle')) {
      const job = queue.shift()!;
      run(idle.find((s) => s.languages === job.languages && s.layout === job.layout) ?? idle.find((s) => s.languages === job.languages) ?? idle[0]!, job);
    }
  }

  for (const slot of slots) void start(slot);

  return {
    recognize(image, { continuation = false, languages = defaultLanguages, layout = 'block' } = {}) {
      if (closed) return Promise.reject(new DocumentError('interrupted', 'The service is shutting down.'));
      const idle = slots.some((s) => s.state === 'idle');
      if (!continuation && !idle && queue.length >= options.queueMax) {
        const waitSeconds = ((queue.length + slots.length) * meanJobMs) / slots.length / 1000;
        const seconds = Math.max(1, Math.ceil(waitSeconds));
        return Promise.reject(serviceUnavailable(`The OCR queue is full; retry in ${seconds} seconds.`, seconds));
      }
      return new Promise<Word[]>((resolve, reject) => {
        queue.push({ image, languages: tesseractLanguages(languages), layout, resolve, reject });
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
