import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, DocumentError } from '../../src/errors.js';
import { createOcrPool, type OcrPool } from '../../src/extraction/ocr-pool.js';
import type { GrayImage } from '../../src/extraction/types.js';
import { EU_INVOICE, invoicePdf, renderPage } from '../fixtures/documents.js';

async function gray(png: Buffer): Promise<GrayImage> {
  const { data, info } = await sharp(png).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pgm: Buffer.concat([Buffer.from(`P5\n${info.width} ${info.height}\n255\n`), data]) };
}

async function oneLine(text: string): Promise<GrayImage> {
  const doc = new PDFDocument({ size: [300, 40], margin: 0 });
  doc.font('Helvetica').fontSize(16).text(text, 10, 12, { lineBreak: false });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const pdf = await new Promise<Buffer>((resolve) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.end();
  });
  return gray(await renderPage(pdf, 200));
}

async function untilReady(pool: OcrPool): Promise<void> {
  while (!pool.ready()) await new Promise((r) => setTimeout(r, 20));
}

let pool: OcrPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe('OCR pool', () => {
  it('reads words with boxes and confidences without blocking the event loop', async () => {
    pool = createOcrPool({ workers: 1, queueMax: 2, timeoutMs: 60_000 });
    await untilReady(pool);
    const page = await gray(await renderPage(await invoicePdf(EU_INVOICE), 300));
    let last = performance.now();
    let longestStall = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last);
      last = now;
    }, 5);
    const words = await pool.recognize(page);
    clearInterval(ticker);
    expect(longestStall).toBeLessThan(150);
    const number = words.find((w) => w.text === 'INV-2026-0042')!;
    expect(number.confidence).toBeGreaterThan(60);
    expect(number.bbox.x).toBeGreaterThan(0.7);
    expect(number.bbox.y).toBeGreaterThan(0.11);
    expect(number.bbox.y).toBeLessThan(0.13);
  });

  it('stops a page past the timeout, replaces the worker and keeps serving', async () => {
    pool = createOcrPool({ workers: 1, queueMax: 2, timeoutMs: 400 });
    await untilReady(pool);
    const page = await gray(await renderPage(await invoicePdf(EU_INVOICE), 300));
    const err = await pool.recognize(page).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocumentError);
    expect((err as DocumentError).code).toBe('timeout');
    expect((err as DocumentError).message).toBe('OCR of a page took longer than 400 ms and was stopped.');
    expect(pool.restarts()).toBe(1);
    const words = await pool.recognize(await oneLine('Total 42'));
    expect(words.map((w) => w.text)).toEqual(['Total', '42']);
  });

  it('fails an image the engine cannot read as ocr_failed and replaces the worker', async () => {
    pool = createOcrPool({ workers: 1, queueMax: 2, timeoutMs: 30_000 });
    await untilReady(pool);
    const err = await pool.recognize({ width: 10, height: 10, pgm: Buffer.from('not an image at all') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocumentError);
    expect((err as DocumentError).code).toBe('ocr_failed');
    expect(pool.restarts()).toBe(1);
    expect((await pool.recognize(await oneLine('Invoice 7'))).map((w) => w.text)).toEqual(['Invoice', '7']);
  });

  it('refuses work with 503 and Retry-After when the queue is full, but never a continuation', async () => {
    pool = createOcrPool({ workers: 1, queueMax: 1, timeoutMs: 30_000 });
    await untilReady(pool);
    const image = await oneLine('Queue 1');
    const running = pool.recognize(image);
    const waiting = pool.recognize(image);
    expect(pool.queueDepth()).toBe(1);
    const err = await pool.recognize(image).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).code).toBe('service_unavailable');
    expect((err as ApiError).message).toMatch(/^The OCR queue is full; retry in \d+ seconds\.$/);
    expect(Number((err as ApiError).headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    const continuation = pool.recognize(image, { continuation: true });
    expect(pool.queueDepth()).toBe(2);
    await Promise.all([running, waiting, continuation]);
    expect(pool.queueDepth()).toBe(0);
  });

  it('fails running and waiting jobs as interrupted on close', async () => {
    pool = createOcrPool({ workers: 1, queueMax: 4, timeoutMs: 30_000 });
    await untilReady(pool);
    const image = await oneLine('Closing');
    const jobs = [pool.recognize(image), pool.recognize(image)].map((p) => p.catch((e: unknown) => e));
    await pool.close();
    for (const job of jobs) {
      const err = (await job) as DocumentError;
      expect(err).toBeInstanceOf(DocumentError);
      expect(err.code).toBe('interrupted');
    }
    expect(pool.ready()).toBe(false);
    pool = null;
  });
});
