import { DocumentError } from '../errors.js';
import { bufferOver } from './buffer-over.js';
import { pixelsOf, toPgm } from './image.js';
import { Objects } from './pdf-objects.js';
import { imageSizes } from './pdf-page-content.js';
import { pagePicture } from './pdf-page-image.js';
import { isPhoto, readableSize, textPictures } from './pdf-pictures.js';
import { PdfRef } from './pdf-syntax.js';
import { loadPdfJs, pdfjsAssets, sharedPdfWorker, type PdfJsDocument, type PdfJsPage } from './pdfjs.js';
import type { Attachment } from './einvoice/read.js';
import type { Box, GrayImage, PageSize, Word } from './types.js';

type TextItem = { str: string; transform: number[]; width: number; height: number };

export interface PdfLimits {
  maxPages: number;
  maxImagePixels: number;
}

export interface PdfDocument {
  pageCount: number;
  /** Words of the page's text layer, or null when it has too little text to trust. */
  words(pageNumber: number): Promise<Word[] | null>;
  size(pageNumber: number): Promise<PageSize>;
  /**
   * The page as OCR reads it: a scanned page's picture as it is, any other page rendered at
   * 300 dpi, or less when that would exceed the pixel limit.
   */
  render(pageNumber: number): Promise<GrayImage>;
  /** Where a text-layer page (its `words`) paints pictures that may hold text the layer lacks (./pdf-pictures.ts). */
  pictures(pageNumber: number, words: Word[]): Promise<Box[]>;
  /** The part `area` (fractions of the page) of the page, rendered for OCR at 300 dpi; null when it shows a photo, not print. */
  renderArea(pageNumber: number, area: Box): Promise<GrayImage | null>;
  /** The files embedded in the PDF (its EmbeddedFiles name tree), with their contents. */
  attachments(): Promise<Attachment[]>;
  close(): Promise<void>;
}

/** Fewer letters and digits than this and a page is treated as scanned: stray page numbers or stamps are not a text layer. */
const MIN_TEXT_CHARS = 16;
const RENDER_DPI = 300;
/** Skia allocates each side in full; keep both sides of a render canvas under this. */
const MAX_CANVAS_SIDE = 12_000;

function openError(err: unknown): DocumentError {
  const name = (err as { name?: string })?.name;
  const message = (err as Error)?.message ?? String(err);
  if (name === 'PasswordException') {
    return new DocumentError('encrypted_document', 'The PDF is password-protected; send it without a password.');
  }
  return new DocumentError('unreadable_document', `The PDF cannot be read (${name ?? 'error'}: ${message}); it may be corrupt or truncated.`);
}

function pageError(pageNumber: number, err: unknown): DocumentError {
  if (err instanceof DocumentError) return err;
  return new DocumentError('unreadable_document', `Page ${pageNumber} of the PDF cannot be read: ${(err as Error)?.message ?? String(err)}`, pageNumber - 1);
}

function clamp01(v: number): number {
  return Math.min(1, Math.max(0, v));
}

/** Characters as a reader counts them (a surrogate pair is one), without spreading the string into an array. */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i += 1) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count -= 1;
      i += 1;
    }
  }
  return count;
}

/**
 * Splits a text run into words, added to `words`. pdf.js reports a run's total advance only, so each word gets
 * the share of the width its characters take, which is exact for monospace and close otherwise.
 */
function itemWords(item: TextItem, m: number[], pageWidth: number, pageHeight: number, words: Word[]): void {
  const fontHeight = Math.hypot(m[2]!, m[3]!);
  const scaleX = Math.hypot(m[0]!, m[1]!) / (Math.hypot(item.transform[0]!, item.transform[1]!) || 1);
  const runWidth = item.width * scaleX;
  const top = m[5]! - fontHeight * 0.8;
  const total = codePoints(item.str) || 1;
  let offset = 0;
  for (const token of item.str.split(/(\s+)/)) {
    const length = codePoints(token);
    if (token.trim()) {
      const x = m[4]! + (runWidth * offset) / total;
      const width = (runWidth * length) / total;
      words.push({
        text: token,
        confidence: 100,
        bbox: {
          x: clamp01(x / pageWidth),
          y: clamp01(top / pageHeight),
          width: clamp01(width / pageWidth),
          height: clamp01(fontHeight / pageHeight),
        },
      });
    }
    offset += length;
  }
}

/**
 * The page, or the part `area` of it (fractions of the page), drawn by pdf.js at 300 dpi, or less
 * when that would exceed the pixel limit.
 */
async function renderPage(page: PdfJsPage, limits: PdfLimits, area: Box = { x: 0, y: 0, width: 1, height: 1 }): Promise<GrayImage> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const base = page.getViewport({ scale: 1 });
  const [areaWidth, areaHeight] = [base.width * area.width, base.height * area.height];
  let scale = RENDER_DPI / 72;
  const pixels = areaWidth * areaHeight * scale * scale;
  if (pixels > limits.maxImagePixels) scale *= Math.sqrt(limits.maxImagePixels / pixels);
  scale = Math.min(scale, MAX_CANVAS_SIDE / areaWidth, MAX_CANVAS_SIDE / areaHeight);
  const viewport = page.getViewport({ scale, offsetX: -area.x * base.width * scale, offsetY: -area.y * base.height * scale });
  const width = Math.max(1, Math.floor(areaWidth * scale));
  const height = Math.max(1, Math.floor(areaHeight * scale));
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  // Transparent pixels would reach OCR as black: scanned pages need a white sheet underneath.
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  await page.render({ canvas: canvas as unknown as HTMLCanvasElement, canvasContext: context as unknown as CanvasRenderingContext2D, viewport }).promise;
  const rgba = context.getImageData(0, 0, width, height).data;
  return toPgm(bufferOver(rgba), width, height);
}

/** Opens a PDF and checks the page count before any page is read. */
export async function openPdf(bytes: Buffer, limits: PdfLimits): Promise<PdfDocument> {
  const pdfjs = await loadPdfJs();
  const { getDocument, Util } = pdfjs;
  const task = getDocument({
    worker: await sharedPdfWorker(),
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
    // Images over the pixel limit are left out of a render rather than decoded.
    maxImageSize: limits.maxImagePixels,
    ...pdfjsAssets,
  });
  let doc: PdfJsDocument;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw openError(err);
  }
  if (doc.numPages > limits.maxPages) {
    await doc.destroy();
    throw new DocumentError('too_many_pages', `The PDF has ${doc.numPages} pages; at most ${limits.maxPages} are accepted.`);
  }

  /**
   * The file's objects, for reading a scanned page's picture from its bytes; not for an encrypted
   * file, whose streams pdf.js decrypts, nor one whose document information pdf.js cannot read.
   */
  let objects: Promise<Objects | null> | null = null;
  const fileObjects = () =>
    (objects ??= doc.getMetadata().then(
      ({ info }) => ((info as { EncryptFilterName?: string | null }).EncryptFilterName ? null : new Objects(bytes)),
      () => null,
    ));

  return {
    pageCount: doc.numPages,

    async words(pageNumber) {
      try {
        const page = await doc.getPage(pageNumber);
        const viewport = page.getViewport({ scale: 1 });
        const content = await page.getTextContent();
        const words: Word[] = [];
        let chars = 0;
        for (const raw of content.items) {
          if (!('str' in raw) || !raw.str.trim()) continue;
          const item = raw as TextItem;
          // Only whether the page reaches MIN_TEXT_CHARS matters, so counting stops there.
          if (chars < MIN_TEXT_CHARS) chars += item.str.replace(/[^\p{L}\p{N}]/gu, '').length;
          itemWords(item, Util.transform(viewport.transform, item.transform), viewport.width, viewport.height, words);
        }
        page.cleanup();
        return chars >= MIN_TEXT_CHARS ? words : null;
      } catch (err) {
        throw pageError(pageNumber, err);
      }
    },

    async size(pageNumber) {
      try {
        const page = await doc.getPage(pageNumber);
        const viewport = page.getViewport({ scale: 1 });
        return { width: viewport.width, height: viewport.height, rotation: ((page.rotate % 360) + 360) % 360 };
      } catch (err) {
        throw pageError(pageNumber, err);
      }
    },

    async render(pageNumber) {
      try {
        const page = await doc.getPage(pageNumber);
        const image = (await pagePicture(pdfjs, page, await fileObjects(), limits.maxImagePixels)) ?? (await renderPage(page, limits));
        page.cleanup();
        return image;
      } catch (err) {
        throw pageError(pageNumber, err);
      }
    },

    async pictures(pageNumber, words) {
      try {
        const page = await doc.getPage(pageNumber);
        const objects = await fileObjects();
        if (!objects || !page.ref) return [];
        // pdf.js's operator list decodes every image first: a page without an image large enough to read is not asked for it.
        const sizes = imageSizes(objects, new PdfRef(page.ref.num, page.ref.gen));
        if (sizes && !sizes.some((s) => readableSize(s.width, s.height))) return [];
        const { fnArray, argsArray } = await page.getOperatorList();
        const viewport = page.getViewport({ scale: 1 });
        return textPictures(pdfjs, fnArray, argsArray as unknown[][], viewport.transform, viewport.width, viewport.height, words);
      } catch {
        // The pictures are a bonus to a page whose text layer was read: one pdf.js cannot list leaves it as it is.
        return [];
      }
    },

    async renderArea(pageNumber, area) {
      try {
        const page = await doc.getPage(pageNumber);
        const { unlevelled, ...levelled } = await renderPage(page, limits, area);
        page.cleanup();
        // The words are placed back on the page by the picture's box: read it as it stands, not levelled.
        const image = unlevelled ?? levelled;
        return isPhoto(pixelsOf(image)) ? null : image;
      } catch (err) {
        throw pageError(pageNumber, err);
      }
    },

    async attachments() {
      // The contents decode within the budget the stream check (./pdf-streams.ts) held the whole file to.
      let found: Record<string, { filename: string; content: Uint8Array | null }> | null;
      try {
        found = await doc.getAttachments();
      } catch {
        // A broken EmbeddedFiles tree is no reason to fail a document whose pages were read.
        return [];
      }
      return Object.values(found ?? {}).flatMap((a) => (a.content ? [{ name: a.filename, bytes: a.content }] : []));
    },

    async close() {
      await doc.destroy();
    },
  };
}
