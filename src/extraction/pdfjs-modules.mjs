// pdf.js's two modules, loaded together. Plain JavaScript so that a document worker can load it
// before tsx (see ../workers/bootstrap.mjs), which would transform pdf.js on every start.

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
];

export const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
// Loaded here rather than by pdf.js on first use so that its own core-js copy runs before the
// natives are put back; pdf.js's in-process worker picks it up from this global.
globalThis.pdfjsWorker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
for (const [owner, name, native] of natives) {
  Object.defineProperty(owner, name, { value: native, writable: true, configurable: true, enumerable: false });
}
