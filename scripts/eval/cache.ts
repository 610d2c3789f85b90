import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DocumentText } from '../../src/extraction/types.js';

/** The code and data OCR and layout depend on: a change to any of them makes every cached document stale. */
const OCR_INPUTS = [
  ...['image', 'orientation', 'ocr-pool', 'ocr-words', 'ocr-languages', 'page-language', 'second-reading', 'layout', 'pdf', 'pdf-page-image', 'pdf-pictures', 'pdfjs', 'input', 'pipeline'].map((name) => `src/extraction/${name}.ts`),
  'package-lock.json',
];

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const codeHash = (repo: string) => sha256(OCR_INPUTS.map((file) => `${file}\n${sha256(readFileSync(path.join(repo, file)))}\n`).join('')).slice(0, 16);

/** Folders of other code versions are removed once nobody has written to them for a day: another run may still be using one. */
const STALE_MS = 24 * 3600 * 1000;

export interface OcrCache {
  /** The document read before from these bytes in this way, if the OCR code has not changed since. */
  get(bytes: Buffer, variant: string): DocumentText | undefined;
  put(bytes: Buffer, variant: string, document: DocumentText): void;
  /** One line: where the cache is and how many documents came from it. */
  describe(): string;
}

/**
 * OCR'd documents (the pipeline's DocumentText) in `.eval-cache/ocr-<hash of the OCR code>/`,
 * one file per input keyed by the sha256 of its bytes and how it was read (`variant`), so that
 * a change to field extraction re-runs in seconds. Disabled, nothing is read but fresh results
 * are still written. A document that cannot be written is only reported: the run goes on.
 */
export function openOcrCache(repo: string, enabled: boolean): OcrCache {
  const code = codeHash(repo);
  const root = path.join(repo, '.eval-cache');
  const dir = path.join(root, `ocr-${code}`);
  mkdirSync(dir, { recursive: true });
  for (const other of readdirSync(root).filter((d) => d.startsWith('ocr-') && d !== `ocr-${code}`)) {
    const at = path.join(root, other);
    if (Date.now() - statSync(at).mtimeMs > STALE_MS) rmSync(at, { recursive: true, force: true });
  }
  const fileOf = (bytes: Buffer, variant: string) => path.join(dir, `${sha256(bytes)}${variant ? `-${sha256(variant).slice(0, 12)}` : ''}.json`);
  let hits = 0;
  let misses = 0;
  let unwritten = 0;
  return {
    get(bytes, variant) {
      const file = fileOf(bytes, variant);
      if (!enabled || !existsSync(file)) return undefined;
      hits += 1;
      return JSON.parse(readFileSync(file, 'utf8')) as DocumentText;
    },
    put(bytes, variant, document) {
      misses += 1;
      const file = fileOf(bytes, variant);
      const partial = `${file}.${process.pid}.tmp`;
      try {
        mkdirSync(dir, { recursive: true });
        writeFileSync(partial, JSON.stringify(document));
        renameSync(partial, file);
      } catch (err) {
        if (unwritten++ === 0) console.log(`OCR cache: not written (${(err as Error).message})`);
      }
    },
    describe() {
      const where = path.relative(repo, dir);
      const changed = codeHash(repo) === code ? '' : '\nWARNING: the OCR or layout code changed during the run; documents may have been read by different code: run again';
      if (!enabled) return `OCR cache not read (--no-cache): ${misses} documents OCR'd, written to ${where}${changed}`;
      if (hits + misses === 0) return 'OCR cache not used: no document was OCR\'d';
      return `OCR cache ${hits ? 'used' : 'empty'}: ${hits} documents from ${where}, ${misses} OCR'd and added${changed}`;
    },
  };
}
