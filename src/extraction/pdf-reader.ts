import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { DocumentError } from '../errors.js';
import { createWorkerPool, WorkerStopped } from '../workers/pool.js';
import type { PdfDocument } from './pdf.js';
import type { OpenRequest } from './pdf-worker.js';
import type { GrayImage, Word } from './types.js';

export type PdfReaderConfig = Pick<
  Config,
  'maxPages' | 'maxImagePixels' | 'pdfWorkers' | 'pdfQueueMax' | 'pdfTimeoutMs' | 'pdfWorkerHeapMb' | 'pdfDecodedRatio' | 'pdfDecodedMinMb'
>;

export interface PdfReader {
  /** Opens a PDF in a worker of its own, which the document keeps until it is closed. */
  open(bytes: Buffer): Promise<PdfDocument>;
  /** True once a worker can take a document. */
  ready(): boolean;
  close(): Promise<void>;
}

const MB = 1024 * 1024;
/** A stream may decode to as much as the largest image the pixel limit allows, at 4 bytes a pixel (RGBA or CMYK). */
const BYTES_PER_PIXEL = 4;

/**
 * PDF reading off the event loop: each document is opened, checked (./pdf-streams.ts), read and
 * rendered by pdf.js in a worker of the pool, which may spend at most `pdfTimeoutMs` on it in all
 * and has a capped heap; this side only passes requests and answers. A worker that overruns or
 * runs out of memory is replaced and the document fails as `document_too_complex`.
 */
export function createPdfReader(config: PdfReaderConfig, logger?: Logger): PdfReader {
  const pool = createWorkerPool({
    name: 'PDF',
    entry: new URL('./pdf-worker.ts', import.meta.url),
    workers: config.pdfWorkers,
    queueMax: config.pdfQueueMax,
    heapMb: config.pdfWorkerHeapMb,
    logger,
  });

  function failure(err: unknown): unknown {
    if (!(err instanceof WorkerStopped)) return err;
    switch (err.reason) {
      case 'timeout':
        return new DocumentError('document_too_complex', `Reading the PDF took more than ${config.pdfTimeoutMs} ms, the time a document may take, and was stopped.`);
      case 'out_of_memory':
        return new DocumentError('document_too_complex', `Reading the PDF needed more than the ${config.pdfWorkerHeapMb} MB of memory a document may use, and was stopped.`);
      case 'closed':
        return new DocumentError('interrupted', 'The service is shutting down.');
      default:
        return new DocumentError('unreadable_document', `Reading the PDF failed: ${err.message}.`);
    }
  }

  return {
    async open(bytes) {
      const job = await pool.acquire(config.pdfTimeoutMs).catch((err: unknown) => {
        throw failure(err);
      });
      const call = <T>(type: string, payload: unknown) =>
        job.call<T>(type, payload).catch((err: unknown) => {
          throw failure(err);
        });
      const request: OpenRequest = {
        bytes,
        limits: {
          maxPages: config.maxPages,
          maxImagePixels: config.maxImagePixels,
          maxDecodedBytes: Math.max(config.pdfDecodedMinMb * MB, config.pdfDecodedRatio * bytes.length),
          maxStreamBytes: config.maxImagePixels * BYTES_PER_PIXEL,
        },
      };
      let pageCount: number;
      try {
        pageCount = await call<number>('open', request);
      } catch (err) {
        job.release();
        throw err;
      }
      return {
        pageCount,
        words: (pageNumber) => call<Word[] | null>('words', pageNumber),
        async render(pageNumber) {
          const image = await call<GrayImage>('render', pageNumber);
          // Moved across threads, the image arrives as a plain Uint8Array; tesseract.js wants a Buffer.
          return { ...image, pgm: Buffer.from(image.pgm.buffer, image.pgm.byteOffset, image.pgm.byteLength) };
        },
        async close() {
          await call('close', null).catch(() => undefined);
          job.release();
        },
      };
    },
    ready: () => pool.ready(),
    close: () => pool.close(),
  };
}
