import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { DocumentError } from '../errors.js';
import { reviveError, type Ready, type Reply } from '../workers/protocol.js';
import { startThread } from '../workers/thread.js';
import { outgoing } from './document-pool.js';
import type { ExtractionInfo, Pipeline, PipelineConfig, PipelineOptions } from './pipeline.js';
import type { ContentType } from './types.js';
import type { OcrLanguage } from './ocr-languages.js';

/** The pipeline's settings, and the level its thread logs at. */
export type PipelineThreadConfig = PipelineConfig & Pick<Config, 'logLevel'>;

/** What the pipeline's thread is started with (./pipeline-worker.ts). */
export interface PipelineThreadData {
  config: PipelineThreadConfig;
  /** Int32 slots the thread writes its state into: READY and QUEUE_DEPTH. */
  state: SharedArrayBuffer;
}

export const READY = 0;
export const QUEUE_DEPTH = 1;
const STATE_SLOTS = 2;

export interface ExtractRequest {
  bytes: Uint8Array;
  contentType: ContentType;
  languages?: OcrLanguage[];
}

/** What the thread tells besides its answers: an extraction's figures, and its log lines for this thread's logger. */
export type PipelineEvent = { extraction: ExtractionInfo } | { log: string };

const ENTRY = new URL('./pipeline-worker.js', import.meta.url);
/** Fields pino adds to every line; this thread's logger adds its own. */
const OWN_FIELDS = ['level', 'time', 'pid', 'hostname', 'service', 'msg'];

/** A line the pipeline's thread logged, written again through this thread's logger (its level, destination and redaction). */
function relog(logger: Logger, line: string): void {
  const record = JSON.parse(line) as Record<string, unknown>;
  const label = logger.levels.labels[record.level as number] as 'info' | undefined;
  const msg = record.msg as string | undefined;
  for (const field of OWN_FIELDS) delete record[field];
  if (label) logger[label](record, msg);
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/**
 * The extraction pipeline in a thread of its own, which starts the OCR and document workers and
 * coordinates them; this thread passes each document in and the result back. A page's pixels
 * pass between the document workers, the coordinating thread and OCR several times over, some
 * 20 MB for one scan: V8 counts such memory towards starting a full collection of the heap of the
 * thread that holds it, and on the thread that answers requests that came to about one full
 * collection a scan while a queue drained. The thread runs at the event loop's priority, its
 * workers below it. Should it die, the extractions it was reading fail and a new one starts.
 */
export function startPipelineThread(config: PipelineThreadConfig, options: PipelineOptions & { logger: Logger }): Pipeline {
  const { logger } = options;
  const state = new Int32Array(new SharedArrayBuffer(STATE_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let closed = false;
  let thread: Worker;

  function start(): void {
    Atomics.store(state, READY, 0);
    const data: PipelineThreadData = { config, state: state.buffer as SharedArrayBuffer };
    // serve() (../workers/serve.ts) shares a progress slot with its caller; a pool reads it when a job overruns, nothing here does.
    const worker = startThread(ENTRY, { background: false, data: { ...data, progress: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT) } });
    worker.unref();
    worker.on('message', (message: Reply | Ready | PipelineEvent) => {
      if ('log' in message) relog(logger, message.log);
      else if ('extraction' in message) options.onExtraction?.(message.extraction);
      else if ('id' in message) answer(message);
    });
    worker.on('error', (err) => lost(worker, err));
    worker.on('exit', (code) => lost(worker, new Error(`it exited with code ${code}`)));
    thread = worker;
  }

  function answer(reply: Reply): void {
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if (reply.ok) call.resolve(reply.value);
    else call.reject(reviveError(reply.error));
  }

  function failPending(err: Error): void {
    const calls = [...pending.values()];
    pending.clear();
    for (const call of calls) call.reject(err);
  }

  function lost(worker: Worker, err: Error): void {
    if (worker !== thread || closed) return;
    logger.error({ err }, 'the extraction pipeline thread died; starting a new one');
    failPending(new Error(`The extraction pipeline thread died: ${err.message}`));
    start();
  }

  function call<T>(type: string, payload: unknown, transfer: ArrayBuffer[] = []): Promise<T> {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      thread.postMessage({ id, type, payload }, transfer);
    });
  }

  start();

  return {
    extract({ bytes, contentType, languages }) {
      if (closed) return Promise.reject(new DocumentError('interrupted', 'The service is shutting down.'));
      const file = outgoing(bytes);
      return call('extract', { bytes: file, contentType, languages } satisfies ExtractRequest, [file.buffer as ArrayBuffer]);
    },
    ready: () => Atomics.load(state, READY) === 1,
    queueDepth: () => Atomics.load(state, QUEUE_DEPTH),
    async close() {
      if (closed) return;
      await call('close', null).catch((err: unknown) => logger.warn({ err }, 'the extraction pipeline thread did not close cleanly'));
      closed = true;
      failPending(new DocumentError('interrupted', 'The service is shutting down.'));
      await thread.terminate();
    },
  };
}
