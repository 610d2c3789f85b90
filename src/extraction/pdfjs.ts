import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
export type PdfJsDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
export type PdfJsPage = Awaited<ReturnType<PdfJsDocument['getPage']>>;
type PdfWorker = InstanceType<PdfJs['PDFWorker']>;

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));

type DataKind = 'standardFontDataUrl' | 'cMapUrl' | 'wasmUrl';

/** Package files already read, by path; pdf.js asks only for names from its own fixed lists, so this stays within the package's few MB. */
const packageFiles = new Map<string, Promise<Uint8Array>>();

/**
 * pdf.js asks for a standard font's, CMap's or WASM decoder's file again for every document it
 * opens; read from disk each time, Helvetica alone cost 1.2 ms of a one-page invoice's 5. These
 * are pdf.js's package data, never the user's file, so one read serves every document.
 */
class PackageDataFactory {
  readonly #dirs: Record<DataKind, string>;

  constructor(dirs: Record<DataKind, string>) {
    this.#dirs = dirs;
  }

  async fetch({ kind, filename }: { kind: DataKind; filename: string }): Promise<Uint8Array> {
    const file = `${this.#dirs[kind]}${filename}`;
    let read = packageFiles.get(file);
    if (!read) {
      read = fs.readFile(file).then((bytes) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      packageFiles.set(file, read);
      // A failed read is not kept, so that a passing I/O error is not served to later documents.
      read.catch(() => packageFiles.delete(file));
    }
    // A copy, so that pdf.js may keep or transfer what it is given without touching the shared one.
    return (await read).slice();
  }
}

/** pdf.js's own font, CMap, WASM and ICC data, read from the package: nothing is fetched. */
export const pdfjsAssets = {
  standardFontDataUrl: path.join(pdfjsRoot, 'standard_fonts') + path.sep,
  cMapUrl: path.join(pdfjsRoot, 'cmaps') + path.sep,
  cMapPacked: true,
  wasmUrl: path.join(pdfjsRoot, 'wasm') + path.sep,
  iccUrl: path.join(pdfjsRoot, 'iccs') + path.sep,
  BinaryDataFactory: PackageDataFactory,
};

/** The module that loads pdf.js, as a document worker preloads it (../workers/bootstrap.mjs). */
export const PDFJS_MODULES = [new URL('./pdfjs-modules.mjs', import.meta.url).href];

let loading: Promise<PdfJs> | null = null;

async function load(): Promise<PdfJs> {
  return (await import('./pdfjs-modules.mjs')).pdfjs;
}

/** pdf.js and its worker, loaded once on first use so that importing the pipeline stays cheap. */
export function loadPdfJs(): Promise<PdfJs> {
  loading ??= load();
  return loading;
}

let worker: Promise<PdfWorker> | null = null;

/**
 * One pdf.js worker for every document, as pdf.js's own viewer keeps one. In Node it is pdf.js's
 * in-process stand-in for a worker thread, and setting one up for each document took 0.9 of a
 * one-page invoice's 4.8 ms. Each document keeps its own state on it; destroying one leaves it up.
 */
export function sharedPdfWorker(): Promise<PdfWorker> {
  worker ??= loadPdfJs().then(({ PDFWorker }) => new PDFWorker({ verbosity: 0 }));
  return worker;
}
