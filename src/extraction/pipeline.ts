import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { DocumentError } from '../errors.js';
import { prepareImage } from './image.js';
import { wordsToLines } from './layout.js';
import { createOcrPool } from './ocr-pool.js';
import { createDocumentPool, type DocumentPoolConfig } from './document-pool.js';
import { readAhead } from './read-ahead.js';
import type { ContentType, DocumentText, FoundField, PageText, Word } from './types.js';

export interface PipelineResult {
  pages: number;
  document: DocumentText;
  fields: FoundField[];
  /** Aggregate 0-100: the mean confidence of the fields found, 0 when none was found. */
  confidence: number;
  /** Pages read by OCR rather than from a PDF text layer. */
  ocrPages: number;
}

export interface ExtractionInfo {
  fileType: ContentType;
  /** Whether the pages came from a text layer, OCR, or both. */
  path: 'text' | 'ocr' | 'mixed';
  ms: number;
  pages: number;
}

export interface PipelineOptions {
  onExtraction?(info: ExtractionInfo): void;
  logger?: Logger;
}

export interface Pipeline {
  extract(input: { bytes: Buffer; contentType: ContentType }): Promise<PipelineResult>;
  /** True once OCR and the document workers can take work. */
  ready(): boolean;
  /** OCR jobs waiting for a worker. */
  queueDepth(): number;
  close(): Promise<void>;
}

export type PipelineConfig = Pick<Config, 'maxPages' | 'maxImagePixels' | 'ocrTimeoutMs' | 'ocrWorkers' | 'ocrQueueMax'> & DocumentPoolConfig;

/** A document's pages, and the fields found in them (none when they hold no text). */
interface Read {
  pages: PageText[];
  fields: FoundField[];
}

const hasText = (pages: PageText[]) => pages.some((p) => p.lines.length);

/** Failures from one page carry the page number and how many pages were done before it. */
function onPage(pageNumber: number, err: unknown): unknown {
  if (!(err instanceof DocumentError) || err.pages !== undefined) return err;
  return new DocumentError(err.code, `Page ${pageNumber}: ${err.message}`, pageNumber - 1);
}

/**
 * The extraction pipeline: document bytes -> page text (text layer or OCR) -> lines -> fields.
 * The OCR and document workers start here, once, and serve every extraction; this thread only
 * coordinates them, besides laying out the words OCR read.
 */
export function createPipeline(config: PipelineConfig, options: PipelineOptions = {}): Pipeline {
  const pool = createOcrPool({ workers: config.ocrWorkers, queueMax: config.ocrQueueMax, timeoutMs: config.ocrTimeoutMs, logger: options.logger });
  const documents = createDocumentPool(config, options.logger);
  const limits = { maxImagePixels: config.maxImagePixels };

  async function readPdf(bytes: Buffer): Promise<Read> {
    const pdf = await documents.openPdf(bytes);
    const textLayer = readAhead(pdf.pageCount, (n) => pdf.lines(n));
    const pages: PageText[] = [];
    const ocrPages: PageText[] = [];
    try {
      for (let n = 1; n <= pdf.pageCount; n += 1) {
        try {
          const { lines, size } = await textLayer(n);
          if (lines) {
            pages.push({ number: n, source: 'text_layer', lines, size });
            continue;
          }
          const image = await pdf.render(n);
          const ocrWords = await pool.recognize(image, { continuation: ocrPages.length > 0 });
          const page: PageText = { number: n, source: 'ocr', lines: wordsToLines(ocrWords, image.height / image.width), size };
          ocrPages.push(page);
          pages.push(page);
        } catch (err) {
          throw onPage(n, err);
        }
      }
      return { pages, fields: hasText(pages) ? await pdf.fields(ocrPages) : [] };
    } finally {
      await pdf.close();
    }
  }

  async function readImage(bytes: Buffer): Promise<Read> {
    const image = await prepareImage(bytes, limits);
    const words: Word[] = await pool.recognize(image);
    const size = { width: image.width, height: image.height, rotation: 0 as const };
    const pages: PageText[] = [{ number: 1, source: 'ocr', lines: wordsToLines(words, image.height / image.width), size }];
    return { pages, fields: hasText(pages) ? await documents.fields({ pages }) : [] };
  }

  return {
    async extract({ bytes, contentType }) {
      const started = performance.now();
      const { pages, fields } = contentType === 'application/pdf' ? await readPdf(bytes) : await readImage(bytes);
      if (!hasText(pages)) {
        throw new DocumentError('no_text_found', 'No text was found in the document, neither in a text layer nor by OCR.', pages.length);
      }
      const document: DocumentText = { pages };
      const ocrPages = pages.filter((p) => p.source === 'ocr').length;
      const confidence = fields.length ? Math.round(fields.reduce((sum, f) => sum + f.confidence, 0) / fields.length) : 0;
      options.onExtraction?.({
        fileType: contentType,
        path: ocrPages === 0 ? 'text' : ocrPages === pages.length ? 'ocr' : 'mixed',
        ms: performance.now() - started,
        pages: pages.length,
      });
      return { pages: pages.length, document, fields, confidence, ocrPages };
    },
    ready: () => pool.ready() && documents.ready(),
    queueDepth: () => pool.queueDepth(),
    async close() {
      await Promise.all([pool.close(), documents.close()]);
    },
  };
}
