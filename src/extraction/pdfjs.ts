import { createRequire } from 'node:module';
import path from 'node:path';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

const require = createRequire(import.meta.url);
const pdfjsRoot = path.dirname(require.resolve('pdfjs-dist/package.json'));

/** pdf.js's own font, CMap, WASM and ICC data, read from the package: nothing is fetched. */
export const pdfjsAssets = {
  standardFontDataUrl: path.join(pdfjsRoot, 'standard_fonts') + path.sep,
  cMapUrl: path.join(pdfjsRoot, 'cmaps') + path.sep,
  cMapPacked: true,
  wasmUrl: path.join(pdfjsRoot, 'wasm') + path.sep,
  iccUrl: path.join(pdfjsRoot, 'iccs') + path.sep,
};

/**
 * Built-ins that core-js, bundled in pdf.js's legacy build (the build that runs on Node 20),
 * replaces process-wide with JavaScript versions for spec corners neither pdf.js nor this service
 * relies on (lengths past 2^32, JSON.rawJSON). Left replaced, every JSON body and array push in the
 * service runs 3-4x slower once the first PDF is read (measured). The polyfills that add what
 * Node 20 lacks (Promise.withResolvers, Uint8Array.prototype.toHex, ...) stay.
 */
const natives = [
  [Array.prototype, 'push', Array.prototype.push],
  [JSON, 'parse', JSON.parse],
  [JSON, 'stringify', JSON.stringify],
  [Function.prototype, 'toString', Function.prototype.toString],
] as const;

let loading: Promise<PdfJs> | null = null;

async function load(): Promise<PdfJs> {
  const lib = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // Loaded here rather than by pdf.js on first use so that its own core-js copy runs before the
  // natives are put back; pdf.js's in-process worker picks it up from this global.
  (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
  for (const [owner, name, native] of natives) {
    Object.defineProperty(owner, name, { value: native, writable: true, configurable: true, enumerable: false });
  }
  return lib;
}

/** pdf.js and its worker, loaded once on first use so that importing the pipeline stays cheap. */
export function loadPdfJs(): Promise<PdfJs> {
  loading ??= load();
  return loading;
}
