import { collectGarbage } from '../workers/gc.js';
import { serve, Transfer } from '../workers/serve.js';
import { bufferOver } from './buffer-over.js';
import { answerWithEInvoice } from './einvoice/answer.js';
import { readEInvoice, type EInvoice } from './einvoice/read.js';
import { extractFields } from './fields.js';
import { prepareImage, thickenStrokes, type ImageLimits } from './image.js';
import { wordsToLines } from './layout.js';
import { openPdf, type PdfDocument, type PdfLimits } from './pdf.js';
import { packLines, unpackDocument, type PackedDocument, type PackedLines } from './packed-lines.js';
import { checkStreams, type StreamLimits } from './pdf-streams.js';
import { loadPdfJs } from './pdfjs.js';
import type { Box, FoundField, GrayImage, Line, PageSize, PageText } from './types.js';

/** A page's text layer as sent to the main thread, and the page's size. */
export interface PageLines {
  lines: PackedLines | null;
  size: PageSize;
  /** Where a text-layer page paints pictures that may hold text of their own (./pdf-pictures.ts). */
  pictures: Box[];
}

/** A part of a page to render for OCR. */
export interface AreaRequest {
  pageNumber: number;
  area: Box;
}

/** What the main thread sends to have an uploaded image prepared for OCR in this worker. */
export interface ImageRequest {
  bytes: Uint8Array;
  limits: ImageLimits;
}

/** What the main thread sends to open a PDF in this worker. */
export interface OpenRequest {
  bytes: Uint8Array;
  limits: PdfLimits & StreamLimits & { maxInvoiceXmlBytes: number };
}

/** A PDF's fields, and what was made of its invoice attachment (null when it carries none). */
export interface PdfFields {
  fields: FoundField[];
  eInvoice: EInvoice | null;
}

/** The PDF this worker holds open: one at a time, for the job that opened it. */
let doc: PdfDocument | null = null;
/** The largest invoice XML the open PDF may carry and have read, as its open request says. */
let maxInvoiceXmlBytes = 0;
/** The text layers read so far, by page number, kept so that the fields can be found here without the main thread sending the document back. */
const textLayers = new Map<number, Line[]>();

function current(): PdfDocument {
  if (!doc) throw new Error('no document is open');
  return doc;
}

/** A buffer of its own, so that it can be moved to the main thread without taking a shared pool with it. */
function own(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  return Buffer.from(bytes);
}

/** A page ready for OCR, its pixels moved to the main thread rather than copied. */
function moved(image: GrayImage): Transfer<GrayImage> {
  const pgm = own(image.pgm);
  const unlevelled = image.unlevelled && { ...image.unlevelled, pgm: own(image.unlevelled.pgm) };
  return new Transfer<GrayImage>({ ...image, pgm, unlevelled }, [pgm.buffer as ArrayBuffer, ...(unlevelled ? [unlevelled.pgm.buffer as ArrayBuffer] : [])]);
}

// Loaded before the worker says it is ready, so that the first document does not wait for it, and
// so that the process-wide built-ins core-js replaces are put back at once (see ./pdfjs.ts).
await loadPdfJs();

/**
 * A document worker: everything whose cost the document decides runs here, off the event loop:
 * the stream pre-check, pdf.js, preparing a page's picture for OCR (an uploaded image's too),
 * laying a text layer out in lines, and finding the fields.
 */
serve({
  async open({ bytes, limits }: OpenRequest) {
    await doc?.close();
    doc = null;
    textLayers.clear();
    const file = bufferOver(bytes);
    await checkStreams(file, limits);
    doc = await openPdf(file, limits);
    maxInvoiceXmlBytes = limits.maxInvoiceXmlBytes;
    return doc.pageCount;
  },
  /** The page's text layer in lines (null when it has too little text) and its size. */
  async lines(pageNumber: number) {
    const size = await current().size(pageNumber);
    const words = await current().words(pageNumber);
    if (!words) return { lines: null, size, pictures: [] };
    const lines = wordsToLines(words);
    textLayers.set(pageNumber, lines);
    const packed = packLines(lines);
    // A letterhead's or footer's picture repeats on later pages: the first page's are read, once.
    const pictures = pageNumber === 1 ? await current().pictures(pageNumber, words) : [];
    return new Transfer<PageLines>({ lines: packed, size, pictures }, [packed.numbers.buffer as ArrayBuffer]);
  },
  /**
   * The open PDF's fields: its text layers as read here, and the pages the main thread read (by
   * OCR instead, or a text layer with its pictures' words added); answered from its invoice
   * attachment when it carries one that can be read.
   */
  async pdfFields(readPages: PackedDocument): Promise<PdfFields> {
    const read = new Map(unpackDocument(readPages).pages.map((p) => [p.number, p]));
    const pages: PageText[] = [];
    for (let n = 1; n <= current().pageCount; n += 1) {
      const lines = textLayers.get(n);
      if (read.has(n)) pages.push(read.get(n)!);
      else if (lines) pages.push({ number: n, source: 'text_layer', lines });
    }
    const generic = extractFields({ pages });
    const reading = readEInvoice(await current().attachments(), maxInvoiceXmlBytes);
    if (!reading) return { fields: generic, eInvoice: null };
    const fields = reading.info.status === 'read' ? answerWithEInvoice(generic, reading, { pages }) : generic;
    return { fields, eInvoice: reading.info };
  },
  async render(pageNumber: number) {
    const image = await current().render(pageNumber);
    // Once the image has gone: the page is at OCR for a second or more, time enough to collect.
    setImmediate(collectGarbage);
    return moved(image);
  },
  async renderArea({ pageNumber, area }: AreaRequest) {
    const image = await current().renderArea(pageNumber, area);
    return image && moved(image);
  },
  /** An uploaded JPEG, PNG or WebP, grayscale, scaled, levelled and its rules erased (./image.ts). */
  async prepareImage({ bytes, limits }: ImageRequest) {
    return moved(await prepareImage(bufferOver(bytes), limits));
  },
  /** A prepared page with its strokes thickened (./image.ts), for a page that reads poorly as it is. */
  thicken(image: GrayImage) {
    return moved(thickenStrokes({ ...image, pgm: bufferOver(image.pgm) }));
  },
  async close() {
    await doc?.close();
    doc = null;
    textLayers.clear();
  },
  fields: (document: PackedDocument) => extractFields(unpackDocument(document)),
});
