import { Writable } from 'node:stream';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ApiError, DocumentError } from '../../src/errors.js';
import { createPipeline, type ExtractionInfo, type Pipeline } from '../../src/extraction/pipeline.js';
import { startPipelineThread } from '../../src/extraction/pipeline-thread.js';
import { createLogger } from '../../src/logger.js';
import { brokenPagePdf } from '../hostile/pdf-builder.js';
import { EU_INVOICE, invoicePdf, renderPage } from '../fixtures/documents.js';

/** The threads startPipelineThread starts, so that a test can stop one under it. */
const started = vi.hoisted(() => [] as Worker[]);
vi.mock('../../src/workers/thread.js', async (real) => {
  const { startThread } = await real<typeof import('../../src/workers/thread.js')>();
  return {
    startThread: (...args: Parameters<typeof startThread>) => {
      const thread = startThread(...args);
      started.push(thread);
      return thread;
    },
  };
});

/** A logger whose lines are kept, parsed. */
function keptLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean).map((l: string) => JSON.parse(l)));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

async function untilReady(pipeline: Pipeline): Promise<void> {
  for (let i = 0; i < 600 && !pipeline.ready(); i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(pipeline.ready()).toBe(true);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => null,
    (e: unknown) => e,
  );
}

const config = { ...loadConfig({}), ocrWorkers: 1, ocrQueueMax: 1 };

describe('the pipeline in a thread of its own', () => {
  const seen: ExtractionInfo[] = [];
  const { logger } = keptLogger();
  let thread: Pipeline;
  let scan: Buffer;

  beforeAll(async () => {
    thread = startPipelineThread(config, { logger, onExtraction: (info) => seen.push(info) });
    scan = await renderPage(await invoicePdf(EU_INVOICE), 200);
  });
  afterAll(() => thread.close());

  it('is not ready until its OCR workers are, then reads a scan as the pipeline does in this thread', async () => {
    expect(thread.ready()).toBe(false);
    await untilReady(thread);
    const here = createPipeline(config);
    try {
      await untilReady(here);
      const [there, local] = await Promise.all([thread.extract({ bytes: scan, contentType: 'image/png' }), here.extract({ bytes: scan, contentType: 'image/png' })]);
      expect(there).toEqual(local);
      expect(there.fields.find((f) => f.field === 'invoice_number')?.value).toBe('INV-2026-0042');
    } finally {
      await here.close();
    }
    expect(seen.at(-1)).toMatchObject({ fileType: 'image/png', path: 'ocr', pages: 1 });
  });

  it("leaves the caller's bytes as they were", async () => {
    const copy = Buffer.from(scan);
    await thread.extract({ bytes: scan, contentType: 'image/png' });
    expect(scan.equals(copy)).toBe(true);
  });

  it("answers a document's failure as the DocumentError it is, with the pages done before it", async () => {
    const err = await rejection(thread.extract({ bytes: brokenPagePdf(5, 3), contentType: 'application/pdf' }));
    expect(err).toBeInstanceOf(DocumentError);
    expect(err).toMatchObject({ code: 'unreadable_document', pages: 2 });
  });

  it('counts the scans waiting for OCR, and refuses one past the full queue with a 503 and its Retry-After', async () => {
    const depth: number[] = [];
    const watch = setInterval(() => depth.push(thread.queueDepth()), 20);
    const settled = await Promise.allSettled([1, 2, 3].map(() => thread.extract({ bytes: scan, contentType: 'image/png' })));
    clearInterval(watch);
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(2);
    const err = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []))[0];
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(Number((err as ApiError).headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(Math.max(...depth)).toBe(1);
    expect(depth.at(-1)).toBe(0);
  });
});

describe("the pipeline thread's logs", () => {
  it("are written through the caller's logger, at their level", async () => {
    const { logger, lines } = keptLogger();
    const thread = startPipelineThread({ ...config, ocrTimeoutMs: 1 }, { logger });
    try {
      await untilReady(thread);
      const err = await rejection(thread.extract({ bytes: await renderPage(await invoicePdf(EU_INVOICE), 100), contentType: 'image/png' }));
      expect(err).toMatchObject({ code: 'timeout' });
      expect(lines).toContainEqual(expect.objectContaining({ level: 40, msg: 'OCR page timed out; replacing its worker', timeoutMs: 1, service: 'docex' }));
    } finally {
      await thread.close();
    }
  });

  it('fails an extraction asked of it once it is closed as interrupted', async () => {
    const thread = startPipelineThread(config, { logger: keptLogger().logger });
    await thread.close();
    expect(await rejection(thread.extract({ bytes: Buffer.from('x'), contentType: 'image/png' }))).toMatchObject({ code: 'interrupted' });
  });
});

describe('a pipeline thread that dies', () => {
  it('fails the extractions it was reading, is logged, and reads the next document in a new thread', async () => {
    const { logger, lines } = keptLogger();
    const thread = startPipelineThread(config, { logger });
    try {
      await untilReady(thread);
      const scan = await renderPage(await invoicePdf(EU_INVOICE), 150);
      const reading = rejection(thread.extract({ bytes: scan, contentType: 'image/png' }));
      await new Promise((r) => setTimeout(r, 200));
      await started.at(-1)!.terminate();
      const err = await reading;
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(DocumentError);
      expect((err as Error).message).toMatch(/^The extraction pipeline thread died: it exited with code 1$/);
      expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: 'the extraction pipeline thread died; starting a new one' }));
      await untilReady(thread);
      expect((await thread.extract({ bytes: scan, contentType: 'image/png' })).fields.length).toBeGreaterThan(5);
    } finally {
      await thread.close();
    }
  });
});
