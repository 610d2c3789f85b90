/**
 * Writes to stdout, base64, a generated single-page scan for the benchmarks: `tsx scripts/bench-scan.ts
 * invoice|small <dpi>` (the test suite's EU invoice, or a receipt-sized page, rendered as PNG). It runs
 * as a process of its own so that what makes the scan (pdfkit, pdf.js and a canvas: about 100 MB of
 * heap that stays loaded) is not in the process being measured, where it made every full garbage
 * collection of the server's main thread three times as long as the server's own heap would.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fromSources } from '../test/scale/processes.js';

export type BenchScan = 'invoice' | 'small';

/** The scan, made by this script in a child process. */
export function benchScan(kind: BenchScan, dpi: number): string {
  return execFileSync(process.execPath, [...fromSources(fileURLToPath(import.meta.url)), kind, String(dpi)], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { EU_INVOICE, invoicePdf, renderPage, smallInvoicePdf } = await import('../test/fixtures/documents.js');
  const [kind, dpi] = process.argv.slice(2);
  const pdf = kind === 'small' ? await smallInvoicePdf() : await invoicePdf(EU_INVOICE);
  process.stdout.write((await renderPage(pdf, Number(dpi))).toString('base64'));
}
