/** pdf.js, loaded with the process's built-ins put back (see ./pdfjs-modules.mjs). */
export const pdfjs: typeof import('pdfjs-dist/legacy/build/pdf.mjs');
