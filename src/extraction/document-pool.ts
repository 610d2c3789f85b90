import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { DocumentError } from '../errors.js';
import { createWorkerPool, WorkerStopped, type Job } from '../workers/pool.js';
import { bufferOver } from './buffer-over.js';
import type { AreaRequest, ImageRequest, OpenRequest, PageLines, PdfFields } from './document-worker.js';
import { PDFJS_MODULES } from './pdfjs.js';
import { packDocument, unpackLines } from './packed-lines.js';
import type { Box, DocumentText, FoundField, GrayImage, Line, PageSize, PageText } from './types.js';

export type DocumentPoolConfig = Pick<
  Config,
  'maxPages' | 'maxImagePixels' | 'documentWorkers' | 'documentQueueMax' | 'documentTimeoutMs' | 'documentWorkerHeapMb' | 'pdfDecodedRatio' | 'pdfDecodedMinMb' | 'eInvoiceMaxMb'
>;

/** A PDF open in a document worker, which it keeps until it is closed. */
export interface OpenPdf {
  pageCount: number;
  /** The page's text layer in lines (null when it has too little text to trust) and its size. */
  lines(pageNumber: number): Promise<{ lines: Line[] | null; size: PageSize; pictures: Box[] }>;
  /** The page rendered for OCR at 300 dpi, or less when that would exceed the pixel limit. */
  render(pageNumber: number): Promise<GrayImage>;
  /** The part `area` (fractions of the page) of a page, rendered for OCR as `render` does; null when it shows a photo, not print. */
  renderArea(pageNumber: number, area: Box): Promise<GrayImage | null>;
  /** A page rendered here with its strokes thickened (thickenStrokes in ./image.ts). */
  thicken(image: GrayImage): Promise<GrayImage>;
  /**
   * The fields of the document read: found in the worker from the text layers it read, so that
   * the document need not be sent back; only the pages read here are (by OCR, or a text layer with
   * its pictures' words), and they stand for the worker's. A PDF carrying an invoice XML
   * (Factur-X, ZUGFeRD, XRechnung) is answered from it, checked against the pages.
   */
  fields(readPages: PageText[]): Promise<PdfFields>;
  close(): Promise<void>;
}

export interface DocumentPool {
  openPdf(bytes: Buffer): Promise<OpenPdf>;
  /** An uploaded JPEG, PNG or WebP prepared for OCR (see prepareImage in ./image.ts), within the pixel limit. */
  prepareImage(bytes: Buffer): Promise<GrayImage>;
  /** A prepared image with its strokes thickened (thickenStrokes in ./image.ts); it was admitted, so this waits rather than being refused. */
  thicken(image: GrayImage): Promise<GrayImage>;
  /** The fields the generic finders see in a document not read from a PDF (an image); it was admitted, so this waits rather than being refused. */
  fields(document: DocumentText): Promise<FoundField[]>;
  /** True once a worker can take a document. */
  ready(): boolean;
  close(): Promise<void>;
}

const MB = 1024 * 1024;
/** A stream may decode to as much as the largest image the pixel limit allows, at 4 bytes a pixel (RGBA or CMYK). */
const BYTES_PER_PIXEL = 4;

/**
 * A document's bytes as sent to a worker: copied once into memory of their own, which is then moved.
 * A structured clone would copy them twice (out and in), and the whole of a shared pool's memory
 * when they are a slice of one; the caller's buffer stays as it is.
 */
export function outgoing(bytes: Buffer): Uint8Array {
  return new Uint8Array(bytes);
}

/** Moved across threads, a page's pixels arrive as plain Uint8Arrays; OCR and turnPage read them as Buffers (the PGM header as text). */
function incoming(image: GrayImage): GrayImage {
  const pgm = bufferOver(image.pgm);
  return { ...image, pgm, unlevelled: image.unlevelled && incoming(image.unlevelled) };
}

/**
 * Work whose cost the tenant's document decides, off the event loop: each PDF is opened, checked
 * (./pdf-streams.ts), read, laid out and rendered by pdf.js in a worker of its own, an uploaded image
 * is decoded and prepared for OCR in one, and a document's fields are found in one; the main thread
 * only passes requests and answers. Each job may keep its
 * worker busy `documentTimeoutMs` in all, in a capped heap; a worker that overruns or runs out of
 * memory is replaced and the document fails as `document_too_complex`.
 */
export function createDocumentPool(config: DocumentPoolConfig, logger?: Logger): DocumentPool {
  const pool = createWorkerPool({
    name: 'document',
    entry: new URL('./document-worker.js', import.meta.url),
    preload: PDFJS_MODULES,
    workers: config.documentWorkers,
    queueMax: config.documentQueueMax,
    heapMb: config.documentWorkerHeapMb,
    logger,
  });

  /** `doing` completes "... took more than N ms": what the job was, for the message. */
  function failure(err: unknown, doing: string, pages?: number): unknown {
    if (!(err instanceof WorkerStopped)) return err;
    switch (err.reason) {
      case 'timeout':
        return new DocumentError('document_too_complex', `${doing} took more than ${config.documentTimeoutMs} ms, the time a document may take, and was stopped.`, pages);
      case 'out_of_memory':
        return new DocumentError('document_too_complex', `${doing} needed more than the ${config.documentWorkerHeapMb} MB of memory a document may use, and was stopped.`, pages);
      case 'closed':
        return new DocumentError('interrupted', 'The service is shutting down.', pages);
      default:
        return new DocumentError('unreadable_document', `${doing} failed: ${err.message}.`, pages);
    }
  }

  /** A worker for a new document (`continuation` false: refused past the queue's bound), or a further job for one already admitted. */
  async function acquire(doing: string, continuation: boolean, pages?: number): Promise<Job> {
    return pool.acquire(config.documentTimeoutMs, { continuation }).catch((err: unknown) => {
      throw failure(err, doing, pages);
    });
  }

  /**
   * A job of one request on a worker of its own, released once answered. The request is made once
   * the worker is there, so that an upload refused for a full queue is not copied first.
   */
  async function oneJob<T>(doing: string, continuation: boolean, type: string, request: () => { payload: unknown; transfer?: ArrayBuffer[] }, pages?: number): Promise<T> {
    const job = await acquire(doing, continuation, pages);
    try {
      const { payload, transfer } = request();
      return await job.call<T>(type, payload, transfer);
    } catch (err) {
      throw failure(err, doing, pages);
    } finally {
      job.release();
    }
  }

  return {
    async openPdf(bytes) {
      const doing = 'Reading the PDF';
      const job = await acquire(doing, false);
      const call = <T>(type: string, payload: unknown, transfer?: ArrayBuffer[]) =>
        job.call<T>(type, payload, transfer).catch((err: unknown) => {
          throw failure(err, doing);
        });
      const file = outgoing(bytes);
      const request: OpenRequest = {
        bytes: file,
        limits: {
          maxPages: config.maxPages,
          maxImagePixels: config.maxImagePixels,
          maxDecodedBytes: Math.max(config.pdfDecodedMinMb * MB, config.pdfDecodedRatio * bytes.length),
          maxStreamBytes: config.maxImagePixels * BYTES_PER_PIXEL,
          maxInvoiceXmlBytes: config.eInvoiceMaxMb * MB,
        },
      };
      let pageCount: number;
      try {
        pageCount = await call<number>('open', request, [file.buffer as ArrayBuffer]);
      } catch (err) {
        job.release();
        throw err;
      }
      return {
        pageCount,
        async lines(pageNumber) {
          const page = await call<PageLines>('lines', pageNumber);
          return { lines: page.lines && unpackLines(page.lines), size: page.size, pictures: page.pictures };
        },
        render: async (pageNumber) => incoming(await call<GrayImage>('render', pageNumber)),
        async renderArea(pageNumber, area) {
          const image = await call<GrayImage | null>('renderArea', { pageNumber, area } satisfies AreaRequest);
          return image && incoming(image);
        },
        thicken: async (image) => incoming(await call<GrayImage>('thicken', image)),
        fields: (readPages) => call<PdfFields>('pdfFields', packDocument({ pages: readPages })),
        async close() {
          await call('close', null).catch(() => undefined);
          job.release();
        },
      };
    },
    async prepareImage(bytes) {
      const image = await oneJob<GrayImage>('Preparing the image', false, 'prepareImage', () => {
        const file = outgoing(bytes);
        return { payload: { bytes: file, limits: { maxImagePixels: config.maxImagePixels } } satisfies ImageRequest, transfer: [file.buffer as ArrayBuffer] };
      });
      return incoming(image);
    },
    thicken: async (image) => incoming(await oneJob<GrayImage>('Preparing the image', true, 'thicken', () => ({ payload: image }))),
    fields: (document) => oneJob<FoundField[]>('Finding the fields in the document', true, 'fields', () => ({ payload: packDocument(document) }), document.pages.length),
    ready: () => pool.ready(),
    close: () => pool.close(),
  };
}
