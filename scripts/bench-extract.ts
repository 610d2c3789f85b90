/**
 * Measures the extraction pipeline against the native tools it competes with, on this machine,
 * in one run: text PDFs against `pdftotext -layout`, OCR against the `tesseract` CLI
 * (single-threaded, its fastest configuration), and peak memory under four concurrent 20 MB uploads.
 *
 *   tsx scripts/bench-extract.ts [--e-invoice | --me-latency]
 *
 * --e-invoice: only what looking for an invoice attachment costs; --me-latency: only GET /v1/me
 * while the OCR workers read scans, with the server's settings from the environment (OCR_WORKERS).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { readEInvoice } from '../src/extraction/einvoice/read.js';
import { decodeFile, MAX_FILE_BYTES } from '../src/extraction/input.js';
import { openPdf } from '../src/extraction/pdf.js';
import { createPipeline } from '../src/extraction/pipeline.js';
import { loadPdfJs, pdfjsAssets, sharedPdfWorker } from '../src/extraction/pdfjs.js';
import { DE_INVOICE, EU_INVOICE, imageOnlyPdf, invoicePdf, largeTextPdf, layoutPdf, padPng, renderPage, US_INVOICE } from '../test/fixtures/documents.js';
import { ciiXml, DE_E_INVOICE } from '../test/fixtures/einvoice.js';
import { percentile } from './percentile.js';

const MEMORY_PHASE = '--memory-phase';
const TEXT_PAGES = 20;
const TEXT_RUNS = 15;
const OCR_RUNS = 5;
/** Single-page scans sent at once for the throughput row. */
const CONCURRENT_SCANS = 8;
const THROUGHPUT_RUNS = 3;
const SCANNED_PDF_RUNS = 3;

interface Row {
  measure: string;
  docex: string;
  baseline: string;
  ratio: string;
  target: string;
}

const rows: Row[] = [];
/** The machine is shared: how busy it was when the run began says how far to trust the times. */
const startLoad = os.loadavg();
const notes: string[] = [];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function timed(runs: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  return (await timedInTurn(runs, { fn })).fn!;
}

/** Milliseconds of CPU this process and its finished children have used, every thread counted. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  // Children's CPU time is only in /proc (fields 16 and 17, cutime and cstime, in clock ticks of 10 ms).
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (user + system) / 1000 + (Number(fields[13]) + Number(fields[14])) * 10;
}

/**
 * The median time of each function, run in turn (a, b, c, a, b, c, ...) rather than one after the
 * other, so that a change in the machine's speed during the run (seen here: 2x between minutes on a
 * shared VM) reaches docex and its baseline alike and leaves their ratio alone; and the median CPU
 * time each took, which other work on the machine does not stretch.
 */
async function measuredInTurn<K extends string>(runs: number, fns: Record<K, () => Promise<unknown> | unknown>): Promise<Record<K, { wall: number; cpu: number }>> {
  const times = Object.fromEntries(Object.keys(fns).map((k) => [k, { wall: [] as number[], cpu: [] as number[] }])) as Record<K, { wall: number[]; cpu: number[] }>;
  for (let i = 0; i < runs; i += 1) {
    for (const [k, fn] of Object.entries(fns) as [K, () => unknown][]) {
      const [start, startCpu] = [performance.now(), cpuMs()];
      await fn();
      times[k].wall.push(performance.now() - start);
      times[k].cpu.push(cpuMs() - startCpu);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, t]) => [k, { wall: median((t as { wall: number[] }).wall), cpu: median((t as { cpu: number[] }).cpu) }])) as Record<K, { wall: number; cpu: number }>;
}

async function timedInTurn<K extends string>(runs: number, fns: Record<K, () => Promise<unknown> | unknown>): Promise<Record<K, number>> {
  const measured = await measuredInTurn(runs, fns);
  return Object.fromEntries(Object.entries(measured).map(([k, m]) => [k, (m as { wall: number }).wall])) as Record<K, number>;
}

/** The command run to its end, without blocking this process's event loop (the pipeline's workers keep running meanwhile). */
function runAsync(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`))));
  });
}

/** `count` jobs, at most `parallel` at once; the wall time in ms. */
async function wall(count: number, parallel: number, job: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(parallel, count) }, async () => {
      while (next < count) {
        next += 1;
        await job();
      }
    }),
  );
  return performance.now() - start;
}

const nativeOcr = (image: string) => runAsync('tesseract', [image, '-'], { ...process.env, OMP_THREAD_LIMIT: '1' });

function available(command: string): boolean {
  return spawnSync(command, ['-v'], { stdio: 'ignore' }).error === undefined;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  const result = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr?.toString()}`);
}

const fmt = (ms: number) => ms.toFixed(ms < 10 ? 2 : 0);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

/**
 * GET /v1/me latency on a server that is idle, then on the same server while every OCR worker reads
 * scans posted back to back: OCR runs on worker threads and must not hold up the request loop.
 */
async function meLatencyDuringOcr(scan: Buffer): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-'));
  try {
    const { startServer } = await import('../src/server.js');
    const config = loadConfig({ ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'bench.sqlite')}`, PORT: '0', LOG_LEVEL: 'silent' });
    const server = await startServer(config);
    try {
      const ws = await server.store.workspaces.create({ name: 'bench', plan: 'enterprise', per_minute: 1_000_000, per_day: 1_000_000 });
      const { secret } = await server.store.apiKeys.create({ workspace_id: ws.id, name: 'bench', scopes: ['extractions:write'] });
      const headers = { authorization: `Bearer ${secret}` };
      const me = async (count: number) => {
        const times: number[] = [];
        for (let i = 0; i < count; i += 1) {
          const start = performance.now();
          const res = await fetch(`${server.url}/v1/me`, { headers });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`GET /v1/me answered ${res.status}`);
          times.push(performance.now() - start);
        }
        return times;
      };
      await me(50);
      const idle = await me(500);
      const body = JSON.stringify({ file: scan.toString('base64'), file_name: 'scan.png' });
      let loading = true;
      let scans = 0;
      const post = async () => {
        const res = await fetch(`${server.url}/v1/extractions`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        if (res.status !== 201) throw new Error(`POST /v1/extractions answered ${res.status}`);
        scans += 1;
      };
      const posters = Array.from({ length: config.ocrWorkers }, async () => {
        while (loading) await post();
      });
      // Let the first scans reach the OCR workers before measuring.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const busy = await me(500);
      loading = false;
      await Promise.all(posters);
      const p99 = percentile(busy, 99);
      rows.push({
        measure: `GET /v1/me p50 / p99 while ${config.ocrWorkers} OCR workers read scans (${scans} read meanwhile), ms`,
        docex: `${fmt(percentile(busy, 50))} / ${fmt(p99)}`,
        baseline: `idle server: ${fmt(percentile(idle, 50))} / ${fmt(percentile(idle, 99))}`,
        ratio: ratio(p99, percentile(idle, 99)),
        target: 'p99 < 20',
      });
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What pdf.js alone takes to open the document and read every page's text, as the pipeline asks it to. */
async function pdfjsTextLayer(pdf: Buffer): Promise<void> {
  const { getDocument } = await loadPdfJs();
  const doc = await getDocument({ worker: await sharedPdfWorker(), data: new Uint8Array(pdf), isEvalSupported: false, useSystemFonts: false, verbosity: 0, ...pdfjsAssets }).promise;
  for (let n = 1; n <= doc.numPages; n += 1) await (await doc.getPage(n)).getTextContent();
  await doc.destroy();
}

async function throughHttp(pdf: Buffer, pages: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-'));
  try {
    const { startServer } = await import('../src/server.js');
    const config = loadConfig({ ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'bench.sqlite')}`, PORT: '0', LOG_LEVEL: 'silent' });
    const server = await startServer(config);
    try {
      const key = server.firstKey?.secret;
      if (!key) throw new Error('the server did not create a first API key');
      const body = JSON.stringify({ file: pdf.toString('base64'), file_name: 'bench.pdf', content_type: 'application/pdf' });
      const post = async () => {
        const res = await fetch(`${server.url}/v1/extractions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        const json = (await res.json()) as { status?: string };
        if (res.status !== 201 || json.status !== 'completed') throw new Error(`HTTP ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
      };
      await post();
      // The bootstrap workspace is on the free plan (10 requests a minute): five measured requests stay within it.
      const ms = await timed(5, post);
      rows.push({ measure: `text PDF through HTTP POST /v1/extractions, ms/page (${pages} pages)`, docex: fmt(ms / pages), baseline: '', ratio: '', target: '' });
    } finally {
      await server.close();
    }
  } catch (err) {
    notes.push(`HTTP end-to-end: skipped (${(err as Error).message}); the in-process figures stand.`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const E_INVOICE_RUNS = 100;

/**
 * What a PDF pays for the e-invoice path, as the document worker runs it once per document: the
 * attachments asked of pdf.js (which keeps the answer, so each run has a freshly opened document)
 * and searched for an invoice XML; for a PDF without one this is all it costs (target 1 ms). Also
 * a Factur-X PDF's, whose XML is then parsed and read.
 */
async function eInvoiceCost(): Promise<void> {
  const limits = { maxPages: 50, maxImagePixels: 40_000_000 };
  const max = loadConfig({}).eInvoiceMaxMb * 1024 * 1024;
  const [plainPdf, hybridPdf] = await Promise.all([invoicePdf(EU_INVOICE), layoutPdf(DE_INVOICE, [{ name: 'factur-x.xml', content: Buffer.from(ciiXml(DE_E_INVOICE)) }])]);
  const open = (pdf: Buffer) => Promise.all(Array.from({ length: E_INVOICE_RUNS + 1 }, () => openPdf(pdf, limits)));
  const [plain, hybrid] = [await open(plainPdf), await open(hybridPdf)];
  const all = [...plain, ...hybrid];
  const look = async (docs: Awaited<ReturnType<typeof open>>) => readEInvoice(await docs.pop()!.attachments(), max);
  if ((await look(plain)) !== null || (await look(hybrid))?.info.status !== 'read') throw new Error('e-invoice bench: unexpected reading');
  const t = await timedInTurn(E_INVOICE_RUNS, { plain: () => look(plain), hybrid: () => look(hybrid) });
  rows.push({ measure: 'looking for an invoice attachment in a PDF without one, ms/document', docex: fmt(t.plain), baseline: '', ratio: '', target: '<= 1' });
  rows.push({ measure: 'reading the Factur-X XML of a hybrid PDF (2 lines), ms/document', docex: fmt(t.hybrid), baseline: '', ratio: '', target: '' });
  await Promise.all(all.map((doc) => doc.close()));
}

/** A pipeline with the service's default settings (OCR_WORKERS and the rest), ready to read. */
async function withDefaults(use: (pipeline: ReturnType<typeof createPipeline>) => Promise<void>): Promise<void> {
  const pipeline = createPipeline(loadConfig({}));
  try {
    while (!pipeline.ready()) await new Promise((r) => setTimeout(r, 20));
    await use(pipeline);
  } finally {
    await pipeline.close();
  }
}

/**
 * A 4-page scanned PDF (four different 300-dpi pages) against the same four pages sent as PNG one
 * after another, with default settings: the PDF's pages may be read side by side, the PNGs cannot.
 */
async function scannedPdfPages(pipeline: ReturnType<typeof createPipeline>, dir: string): Promise<void> {
  const sources = [await invoicePdf(EU_INVOICE), await invoicePdf(US_INVOICE), await layoutPdf(DE_INVOICE), await invoicePdf(EU_INVOICE, { extraPages: 1 })];
  const pngs = await Promise.all(sources.map((pdf, i) => renderPage(pdf, 300, i === 3 ? 2 : 1)));
  const pdf = await imageOnlyPdf(...pngs);
  fs.writeFileSync(path.join(dir, 'scan-4.pdf'), pdf);
  await pipeline.extract({ bytes: pdf, contentType: 'application/pdf' });
  const t = await timedInTurn(SCANNED_PDF_RUNS, {
    pdf: () => pipeline.extract({ bytes: pdf, contentType: 'application/pdf' }),
    pngs: async () => {
      for (const png of pngs) await pipeline.extract({ bytes: png, contentType: 'image/png' });
    },
  });
  rows.push({ measure: `4-page scanned PDF, default settings (OCR_WORKERS=${loadConfig({}).ocrWorkers}), ms`, docex: fmt(t.pdf), baseline: `its 4 pages as PNG, one by one: ${fmt(t.pngs)}`, ratio: ratio(t.pdf, t.pngs), target: '<= 0.6x' });
}

/**
 * Pages a second for single-page scans sent all at once, with default settings, against native
 * tesseract run as one single-threaded process per CPU on the same image.
 */
async function concurrentScans(pipeline: ReturnType<typeof createPipeline>, scan: Buffer, scanPath: string): Promise<void> {
  const cpus = os.availableParallelism();
  const t = await timedInTurn(THROUGHPUT_RUNS, {
    docex: () => Promise.all(Array.from({ length: CONCURRENT_SCANS }, () => pipeline.extract({ bytes: scan, contentType: 'image/png' }))),
    native: () => wall(CONCURRENT_SCANS, cpus, () => nativeOcr(scanPath)),
  });
  const [docex, native] = [CONCURRENT_SCANS / (t.docex / 1000), CONCURRENT_SCANS / (t.native / 1000)];
  rows.push({
    measure: `${CONCURRENT_SCANS} single-page scans at once, default settings (OCR_WORKERS=${loadConfig({}).ocrWorkers}), pages/s`,
    docex: docex.toFixed(2),
    baseline: `tesseract CLI, ${cpus} processes at once: ${native.toFixed(2)}`,
    ratio: ratio(docex, native),
    target: '>= 0.8x',
  });
}

async function main(): Promise<void> {
  await eInvoiceCost();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-'));
  const hasPdftotext = available('pdftotext');
  const hasTesseract = available('tesseract');

  // Text PDFs: in-process pipeline against pdftotext on the same file, process start included for both sides' honesty.
  const textPdf = await invoicePdf(EU_INVOICE, { extraPages: TEXT_PAGES - 1 });
  const textPath = path.join(dir, 'text.pdf');
  fs.writeFileSync(textPath, textPdf);
  const single = createPipeline({ ...loadConfig({}), maxPages: 50, maxImagePixels: 40_000_000, ocrTimeoutMs: 120_000, ocrWorkers: 1, ocrQueueMax: 8 });
  // The OCR worker loads its model on the other core for a few seconds: the text runs wait for it, so
  // that they and pdftotext's run on an equally quiet machine.
  while (!single.ready()) await new Promise((r) => setTimeout(r, 20));
  await single.extract({ bytes: textPdf, contentType: 'application/pdf' });
  const text = await timedInTurn(TEXT_RUNS, {
    pipeline: () => single.extract({ bytes: textPdf, contentType: 'application/pdf' }),
    pdfjs: () => pdfjsTextLayer(textPdf),
    pdftotext: () => hasPdftotext && run('pdftotext', ['-layout', textPath, '-']),
  });
  const pipelineText = text.pipeline / TEXT_PAGES;
  const pdfjsText = text.pdfjs / TEXT_PAGES;
  if (hasPdftotext) {
    const native = text.pdftotext / TEXT_PAGES;
    rows.push({ measure: `text PDF in-process, ms/page (${TEXT_PAGES} pages)`, docex: fmt(pipelineText), baseline: `pdftotext -layout: ${fmt(native)}`, ratio: ratio(pipelineText, native), target: '' });
    rows.push({ measure: '  of which the floor: pdf.js reading the text layer alone, ms/page', docex: fmt(pdfjsText), baseline: `pdftotext -layout: ${fmt(native)}`, ratio: ratio(pdfjsText, native), target: '' });
  } else {
    rows.push({ measure: `text PDF in-process, ms/page (${TEXT_PAGES} pages)`, docex: fmt(pipelineText), baseline: 'skipped', ratio: '', target: '' });
    notes.push('pdftotext: skipped: install poppler-utils');
  }
  await throughHttp(textPdf, TEXT_PAGES);

  // OCR: one 300-dpi scanned page, single worker against single-threaded native tesseract (start-up included there).
  const scan = await renderPage(await invoicePdf(EU_INVOICE), 300);
  const scanPath = path.join(dir, 'scan.png');
  fs.writeFileSync(scanPath, scan);
  await single.extract({ bytes: scan, contentType: 'image/png' });
  const scannedPdf = await imageOnlyPdf(scan);
  const ocr = await measuredInTurn(OCR_RUNS, {
    png: () => single.extract({ bytes: scan, contentType: 'image/png' }),
    pdf: () => single.extract({ bytes: scannedPdf, contentType: 'application/pdf' }),
    tesseract: () => hasTesseract && run('tesseract', [scanPath, '-'], { ...process.env, OMP_THREAD_LIMIT: '1' }),
  });
  const both = (m: { wall: number; cpu: number }) => `${fmt(m.wall)} (CPU ${fmt(m.cpu)})`;
  const ratios = (a: { wall: number; cpu: number }, b: { wall: number; cpu: number }) => `${ratio(a.wall, b.wall)} (CPU ${ratio(a.cpu, b.cpu)})`;
  const endToEnd = 'one OCR page end to end (300-dpi PNG, in-process), ms';
  if (hasTesseract) {
    rows.push({ measure: endToEnd, docex: both(ocr.png), baseline: `tesseract CLI (OMP_THREAD_LIMIT=1): ${both(ocr.tesseract)}`, ratio: ratios(ocr.png, ocr.tesseract), target: '<= 1.3x' });
  } else {
    rows.push({ measure: endToEnd, docex: both(ocr.png), baseline: 'skipped', ratio: '', target: '<= 1.3x' });
    notes.push('tesseract: skipped: install tesseract-ocr tesseract-ocr-eng');
  }
  rows.push({ measure: 'scanned PDF page (the same picture, no text layer), ms', docex: both(ocr.pdf), baseline: `the page as PNG: ${both(ocr.png)}`, ratio: ratios(ocr.pdf, ocr.png), target: '<= 1.2x' });
  await single.close();
  await withDefaults(async (pipeline) => {
    await scannedPdfPages(pipeline, dir);
    if (hasTesseract) await concurrentScans(pipeline, scan, scanPath);
  });
  await meLatencyDuringOcr(scan);

  // Memory is measured in a fresh process that only reads the files: generating them and the phases
  // above leave heap and OCR memory behind that the OS has not taken back, which is not the service's.
  const size = MAX_FILE_BYTES - 256 * 1024;
  const files = [
    ['large-1.pdf', await largeTextPdf(EU_INVOICE, size)],
    ['large-2.pdf', await largeTextPdf(EU_INVOICE, size)],
    ['large-3.png', padPng(scan, size)],
    ['large-4.png', padPng(scan, size)],
  ].map(([name, bytes]) => {
    const file = path.join(dir, name as string);
    fs.writeFileSync(file, bytes as Buffer);
    return file;
  });
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), MEMORY_PHASE, ...files], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (child.status !== 0) throw new Error(`memory phase failed: ${child.stderr}`);
  const memory = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as MemoryResult;
  const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;
  rows.push({
    measure: `peak RSS, 4 concurrent uploads (${memory.sizes.join(' / ')} MB: 2 text PDFs, 2 PNG scans; ${memory.wallMs} ms)`,
    docex: mb(memory.peak),
    baseline: `RSS idle, OCR workers up: ${mb(memory.before)}`,
    ratio: '',
    target: '< 1 GB',
  });
  if (memory.failures.length) notes.push(`concurrent uploads: ${memory.failures.length} failed: ${memory.failures.join('; ')}`);
  notes.push(`memory phase process max RSS (getrusage): ${mb(memory.maxRss)}`);

  fs.rmSync(dir, { recursive: true, force: true });
  printRows();
}

function printRows(): void {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const load = (averages: number[]) => averages.map((a) => a.toFixed(2)).join(', ');
  process.stdout.write(`docex extraction benchmark, ${new Date().toISOString()}, Node ${process.version}, ${cpu} x ${os.availableParallelism()}\n`);
  process.stdout.write(`load average (1, 5, 15 min) at the start: ${load(startLoad)}; at the end: ${load(os.loadavg())}\n\n`);
  const header: Row = { measure: 'measure', docex: 'docex', baseline: 'baseline', ratio: 'ratio', target: 'target' };
  const widths = (Object.keys(header) as (keyof Row)[]).map((k) => Math.max(...[header, ...rows].map((r) => r[k].length)));
  const line = (r: Row) => `| ${(Object.keys(header) as (keyof Row)[]).map((k, i) => r[k].padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}\n\n`);
  for (const note of notes) process.stdout.write(`- ${note}\n`);
}

interface MemoryResult {
  sizes: string[];
  before: number;
  peak: number;
  maxRss: number;
  wallMs: number;
  failures: string[];
}

/** Four ~20 MB uploads at once, read and base64-encoded as the HTTP layer receives them, with the service's default configuration. */
async function memoryPhase(files: string[]): Promise<MemoryResult> {
  const pipeline = createPipeline(loadConfig({}));
  while (!pipeline.ready()) await new Promise((r) => setTimeout(r, 20));
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const start = performance.now();
  const uploads = files.map((file) => ({ file: fs.readFileSync(file).toString('base64'), file_name: path.basename(file) }));
  const results = await Promise.allSettled(uploads.map((u) => pipeline.extract(decodeFile(u))));
  const wallMs = Math.round(performance.now() - start);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  await pipeline.close();
  return {
    sizes: uploads.map((u) => (Buffer.byteLength(u.file, 'base64') / 1024 / 1024).toFixed(1)),
    before,
    peak,
    maxRss: process.resourceUsage().maxRSS * 1024,
    wallMs,
    failures: results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : [])),
  };
}

const phase = process.argv.indexOf(MEMORY_PHASE);
if (phase >= 0) process.stdout.write(`${JSON.stringify(await memoryPhase(process.argv.slice(phase + 1)))}\n`);
else if (process.argv.includes('--e-invoice')) {
  await eInvoiceCost();
  printRows();
} else if (process.argv.includes('--me-latency')) {
  await meLatencyDuringOcr(await renderPage(await invoicePdf(EU_INVOICE), 300));
  printRows();
} else await main();
