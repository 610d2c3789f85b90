import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DocumentText } from '../../src/extraction/types.js';

/** The code and data OCR and layout depend on: a change to any of them makes every cached document stale. */
const OCR_INPUTS = [
  ...['image', 'ocr-pool', 'ocr-words', 'layout', 'pdf', 'pdfjs', 'input', 'pipeline'].map((name) => `src/extraction/${name}.ts`),
  'package-lock.json',
];

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

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
 * a change to field extraction re-runs in seconds. Older code hashes' folders are removed.
 * Disabled, nothing is read but fresh results are still written.
 */
export function openOcrCache(repo: string, enabled: boolean): OcrCache {
  const code = sha256(OCR_INPUTS.map((file) => `${file}\n${sha256(readFileSync(path.join(repo, file)))}\n`).join('')).slice(0, 16);
  const root = path.join(repo, '.eval-cache');
  const dir = path.join(root, `ocr-${code}`);
  mkdirSync(dir, { recursive: true });
  for (const stale of readdirSync(root).filter((d) => d.startsWith('ocr-') && d !== `ocr-${code}`)) {
    rmSync(path.join(root, stale), { recursive: true, force: true });
  }
  const fileOf = (bytes: Buffer, variant: string) => path.join(dir, `${sha256(bytes)}${variant ? `-${sha256(variant).slice(0, 12)}` : ''}.json`);
  let hits = 0;
  let misses = 0;
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
      writeFileSync(partial, JSON.stringify(document));
      renameSync(partial, file);
    },
    describe() {
      const where = path.relative(repo, dir);
      if (!enabled) return `OCR cache not read (--no-cache): ${misses} documents OCR'd, written to ${where}`;
      if (hits + misses === 0) return 'OCR cache not used: no document was OCR\'d';
      return `OCR cache ${hits ? 'used' : 'empty'}: ${hits} documents from ${where}, ${misses} OCR'd and added`;
    },
  };
}
