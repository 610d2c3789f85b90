import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { extractFields } from '../../src/extraction/fields.js';
import { createPipeline, readByOcr, type Pipeline } from '../../src/extraction/pipeline.js';
import type { EInvoice } from '../../src/extraction/einvoice/read.js';
import type { ContentType, DocumentText, FoundField } from '../../src/extraction/types.js';
import type { OcrCache } from './cache.js';

/** How a corpus reads its documents: the real pipeline, OCR'd documents through the cache. */
export interface Reader {
  /** The file through the pipeline, as the service reads it; an empty document (and a message) when it cannot be read. */
  read(name: string, bytes: Buffer, contentType: ContentType): Promise<DocumentText>;
  /**
   * The fields the service answers with (the PDF's invoice attachment read, when it has one), and
   * what was made of the attachment; not cached, for text-layer documents. Never throws.
   */
  extract(name: string, bytes: Buffer, contentType: ContentType): Promise<{ fields: FoundField[]; eInvoice: EInvoice | null }>;
  /** A PDF as a scan: each page rendered to a 200 dpi PNG by pdftoppm and read by OCR, the pages put back together. */
  readScan(name: string, pdf: Buffer): Promise<DocumentText>;
  /** How many documents to read at once to keep the OCR workers busy. */
  concurrency: number;
  close(): Promise<void>;
}

export function hasPdftoppm(): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => existsSync(path.join(dir, 'pdftoppm')));
}

const SCAN_DPI = 200;

/** pdftoppm's version, part of a scan's cache key: another renderer makes other pixels. */
function pdftoppmVersion(): string {
  try {
    return execFileSync('pdftoppm', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? '').trim();
  }
}

export function createReader(cache: OcrCache): Reader {
  const config = loadConfig();
  let pipeline: Pipeline | undefined;
  const started = () => (pipeline ??= createPipeline(config));
  let scanVariant: string | undefined;

  /** The document from the cache, or made and cached when any of its pages was OCR'd; never throws. */
  async function cached(name: string, bytes: Buffer, variant: string, make: () => Promise<DocumentText>): Promise<DocumentText> {
    const hit = cache.get(bytes, variant);
    if (hit) return hit;
    try {
      const document = await make();
      if (document.pages.some(readByOcr)) cache.put(bytes, variant, document);
      return document;
    } catch (err) {
      console.log(`${name}: not read (${(err as Error).message})`);
      return { pages: [] };
    }
  }

  async function scan(pdf: Buffer): Promise<DocumentText> {
    const dir = mkdtempSync(path.join(tmpdir(), 'docex-eval-'));
    try {
      writeFileSync(path.join(dir, 'in.pdf'), pdf);
      execFileSync('pdftoppm', ['-r', String(SCAN_DPI), '-png', path.join(dir, 'in.pdf'), path.join(dir, 'page')]);
      const pngs = readdirSync(dir).filter((f) => f.endsWith('.png')).sort();
      const pages = [];
      for (const [i, png] of pngs.entries()) {
        const result = await started().extract({ bytes: readFileSync(path.join(dir, png)), contentType: 'image/png' });
        pages.push(...result.document.pages.map((p) => ({ ...p, number: i + 1 })));
      }
      return { pages };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  return {
    read: (name, bytes, contentType) => cached(name, bytes, '', async () => (await started().extract({ bytes, contentType })).document),
    async extract(name, bytes, contentType) {
      try {
        const result = await started().extract({ bytes, contentType });
        return { fields: result.fields, eInvoice: result.eInvoice };
      } catch (err) {
        console.log(`${name}: not read (${(err as Error).message})`);
        return { fields: [], eInvoice: null };
      }
    },
    readScan(name, pdf) {
      scanVariant ??= `pdftoppm -r ${SCAN_DPI} -png; ${pdftoppmVersion()}`;
      return cached(name, pdf, scanVariant, () => scan(pdf));
    },
    concurrency: config.ocrWorkers + 1,
    close: async () => pipeline?.close(),
  };
}

/** The generic fields of a document, none for a document that could not be read. */
export const fieldsOf = (document: DocumentText): FoundField[] => (document.pages.length ? extractFields(document) : []);

/** `fn` over every item, at most `limit` at once, results in the items' order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
