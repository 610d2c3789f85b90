import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { bombPng, EU_INVOICE, invoicePdf, renderPage } from '../fixtures/documents.js';
import { hugePagePdf, manyPagesPdf } from './pdf-builder.js';

interface Outcome {
  status: number;
  code: string;
  message: string;
}

/**
 * Hostile documents through the real API: each one ends in a 422 invalid_file or in a stored
 * `failed` extraction with a useful message, within bounded time and memory, never a 5xx.
 */
describe('hostile documents', () => {
  let api: ApiServer;
  let key: string;
  let pdf: Buffer;
  let png: Buffer;
  let jpeg: Buffer;
  let webp: Buffer;
  // Measured once the service is warm (its OCR and document worker threads up, pdf.js loaded in
  // them): what a hostile document adds, not what the service costs idle.
  let rssBefore = Infinity;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

  beforeAll(async () => {
    api = await startApiServer(databases[0], { env: { MAX_PAGES: '50', OCR_TIMEOUT_MS: '30000' } });
    key = (await api.newKey({ plan: 'enterprise', per_minute: 10_000, per_day: 100_000 })).secret;
    pdf = await invoicePdf(EU_INVOICE);
    png = await sharp(await renderPage(pdf, 100)).png().toBuffer();
    jpeg = await sharp(png).jpeg().toBuffer();
    webp = await sharp(png).webp().toBuffer();
    expect((await send(pdf, 'warm-up.pdf')).status).toBe(201);
    expect((await send(png, 'warm-up.png')).status).toBe(201);
    rssBefore = process.memoryUsage().rss;
    peakRss = rssBefore;
  });
  afterAll(async () => {
    clearInterval(sampler);
    await api?.close();
  });

  async function send(file: Buffer, fileName: string, contentType?: string): Promise<Outcome> {
    const started = Date.now();
    const res = await api.call('createExtraction', 'POST', '/v1/extractions', {
      key,
      body: { file: file.toString('base64'), file_name: fileName, ...(contentType ? { content_type: contentType } : {}) },
    });
    expect(Date.now() - started, `${fileName} took too long`).toBeLessThan(60_000);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
    const body = res.body as { status?: string; error_code?: string; error_message?: string; error?: { code: string; message: string } };
    if (res.status === 201) {
      if (body.status === 'failed') {
        const stored = await api.call('getExtraction', 'GET', `/v1/extractions/${(res.body as { id: string }).id}`, { key });
        expect((stored.body as { status: string }).status).toBe('failed');
      }
      return { status: 201, code: body.status === 'failed' ? body.error_code! : 'completed', message: body.error_message ?? '' };
    }
    return { status: res.status, code: body.error!.code, message: body.error!.message };
  }

  it('fails a truncated PDF and a corrupt one with a message', async () => {
    const truncated = await send(pdf.subarray(0, Math.floor(pdf.length / 3)), 'truncated.pdf');
    expect(truncated).toMatchObject({ status: 201, code: 'unreadable_document' });
    expect(truncated.message.length).toBeGreaterThan(10);
    const garbage = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4096, 0x41)]);
    expect(await send(garbage, 'corrupt.pdf')).toMatchObject({ status: 201, code: 'unreadable_document' });
  });

  it('fails an encrypted PDF saying it is encrypted', async () => {
    const encrypted = await invoicePdf(EU_INVOICE, { userPassword: 'secret' });
    const outcome = await send(encrypted, 'encrypted.pdf');
    expect(outcome).toMatchObject({ status: 201, code: 'encrypted_document' });
    expect(outcome.message).toMatch(/password|encrypt/i);
  });

  it('refuses a 10 000-page PDF by the page limit before rendering anything', async () => {
    const started = Date.now();
    const outcome = await send(manyPagesPdf(10_000), 'many.pdf');
    expect(outcome).toMatchObject({ status: 201, code: 'too_many_pages' });
    expect(outcome.message).toMatch(/10000|10 000|10,000/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('reads a page with a huge media box without allocating it at full size', async () => {
    const outcome = await send(hugePagePdf(14_400), 'huge-page.pdf');
    expect(outcome.status).toBe(201);
    expect(['completed', 'no_text_found']).toContain(outcome.code);
  });

  it('refuses a decompression bomb from its header', async () => {
    const outcome = await send(bombPng(100_000, 100_000), 'bomb.png');
    expect(outcome).toMatchObject({ status: 201, code: 'image_too_large' });
  });

  it('answers 422 invalid_file for lying content types and extensions, and for unsupported bytes', async () => {
    for (const [bytes, name, type] of [
      [png, 'scan.pdf', undefined],
      [pdf, 'invoice.png', undefined],
      [jpeg, 'photo.jpg', 'image/png'],
      [webp, 'image.webp', 'image/jpeg'],
      [Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'x.gif', undefined],
      [Buffer.from('PK\x03\x04 not a document', 'latin1'), 'x.pdf', undefined],
    ] as const) {
      const outcome = await send(bytes, name, type);
      expect(outcome.status, name).toBe(422);
      expect(outcome.code).toBe('invalid_file');
      expect(outcome.message.length).toBeGreaterThan(10);
    }
  });

  it('treats a PDF/JPEG polyglot as the type its leading bytes say', async () => {
    const polyglot = Buffer.concat([jpeg, pdf]);
    const asJpeg = await send(polyglot, 'polyglot.jpg');
    expect(asJpeg.status).toBe(201);
    const asPdf = await send(polyglot, 'polyglot.pdf');
    expect(asPdf.status).toBe(422);
  });

  it('handles zero-pixel-like, CMYK, 16-bit and animated images', async () => {
    const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } }).png().toBuffer();
    const zero = Buffer.from(tiny);
    zero.writeUInt32BE(0, 16);
    zero.writeUInt32BE(0, 20);
    const zeroOutcome = await send(zero, 'zero.png');
    expect([201, 422]).toContain(zeroOutcome.status);
    if (zeroOutcome.status === 201) expect(zeroOutcome.code).not.toBe('completed');

    const cmyk = await sharp(png).toColourspace('cmyk').jpeg().toBuffer();
    expect((await send(cmyk, 'cmyk.jpg')).status).toBe(201);
    const sixteen = await sharp(png).toColourspace('rgb16').png().toBuffer();
    expect((await send(sixteen, 'deep.png')).status).toBe(201);
    const frames = await sharp(png, { animated: false }).resize(400).png().toBuffer();
    const animated = await sharp([frames, frames], { join: { animated: true } }).webp({ loop: 0 }).toBuffer();
    expect((await send(animated, 'animated.webp')).status).toBe(201);
  });

  it('kept the process memory bounded throughout', () => {
    expect(peakRss - rssBefore).toBeLessThan(1024 * 1024 * 1024);
  });
});
