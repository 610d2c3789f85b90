import zlib from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DocumentError } from '../../src/errors.js';
import { checkStreams, type StreamLimits } from '../../src/extraction/pdf-streams.js';
import { EU_INVOICE, imageOnlyPdf, invoicePdf, renderPage } from '../fixtures/documents.js';
import {
  chainedBombPdf,
  deflateRun,
  encryptedBombPdf,
  flateBombPdf,
  GIB,
  hugeImagePdf,
  manyStreamsBombPdf,
  objectStreamBombPdf,
  rawPdf,
  stream,
} from '../hostile/pdf-builder.js';

const MB = 1024 * 1024;
/** The defaults for a small upload: 256 MB in all, a stream as large as a 40 MP image at 4 bytes a pixel. */
const LIMITS: StreamLimits = { maxDecodedBytes: 256 * MB, maxStreamBytes: 160_000_000, maxImagePixels: 40_000_000 };

async function refusal(pdf: Buffer, limits: StreamLimits = LIMITS): Promise<DocumentError> {
  const err = await checkStreams(pdf, limits).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DocumentError);
  expect((err as DocumentError).code).toBe('document_too_complex');
  return err as DocumentError;
}

/** A one-page PDF whose extra objects are given, numbered from 4. */
function pdfWith(...objects: string[]): Buffer {
  return rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>', ...objects]);
}

describe('the stream pre-check', () => {
  it('lets a text invoice through, having decoded its content streams', async () => {
    const summary = await checkStreams(await invoicePdf(EU_INVOICE, { extraPages: 2 }), LIMITS);
    expect(summary.streams).toBeGreaterThanOrEqual(3);
    expect(summary.decodedBytes).toBeGreaterThan(1_000);
  });

  it('lets through a scan-like page image and a 36-megapixel Flate image, both far more than 20 times their upload', async () => {
    const scan = imageOnlyPdf(await renderPage(await invoicePdf(EU_INVOICE), 300));
    const summary = await checkStreams(await scan, LIMITS);
    expect(summary.decodedBytes).toBeGreaterThan(20 * (await scan).length);
    const photo = pdfWith(stream('/Type /XObject /Subtype /Image /Width 6000 /Height 6000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode', deflateRun(0xff, 6000 * 6000 * 3)));
    expect(photo.length).toBeLessThan(1 * MB);
    expect((await checkStreams(photo, LIMITS)).decodedBytes).toBe(108_000_000);
  });

  it('refuses a Flate content bomb (1 GiB of spaces in 1 MB) at the per-stream limit', async () => {
    const err = await refusal(flateBombPdf());
    expect(err.message).toMatch(/decodes to more than 153 MB, the most one stream may/);
    expect(err.message).toMatch(/FlateDecode/);
  });

  it('refuses a chain of filters (ASCIIHex, Flate, Flate) naming the chain', async () => {
    const err = await refusal(chainedBombPdf());
    expect(err.message).toMatch(/ASCIIHexDecode \+ FlateDecode \+ FlateDecode/);
  });

  it('refuses an object-stream bomb, whose page tree sits behind 1 GiB of spaces', async () => {
    const err = await refusal(objectStreamBombPdf());
    expect(err.message).toMatch(/decompression bomb/);
  });

  it('refuses 50 pages of 1 GiB each by the document budget, however small each stream is against it', async () => {
    const pdf = manyStreamsBombPdf(50, GIB);
    expect(pdf.length).toBeLessThan(1 * MB);
    const err = await refusal(pdf, { ...LIMITS, maxStreamBytes: 2 * GIB });
    expect(err.message).toMatch(/decode to more than 256 MB in all, the decoded-data budget/);
  });

  it('stops decoding the moment the budget is spent, and never holds what it decodes', async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    // Within the budget: decoded in full, piece by piece.
    expect((await checkStreams(flateBombPdf(GIB), { ...LIMITS, maxDecodedBytes: 2 * GIB, maxStreamBytes: 2 * GIB })).decodedBytes).toBe(GIB);
    clearInterval(sampler);
    expect(peak - before).toBeLessThan(128 * MB);
  });

  it('refuses an image over the pixel limit from its dictionary, before decoding it', async () => {
    const err = await refusal(hugeImagePdf(20_000));
    expect(err.message).toMatch(/20000x20000 pixels \(400,000,000\); at most 40,000,000/);
    // Data that is not even Flate gets the same answer: nothing was decoded to find it.
    const undecodable = pdfWith(stream('/Subtype /Image /Width 20000 /Height 20000 /Filter /FlateDecode', Buffer.from('garbage')));
    expect((await refusal(undecodable)).message).toMatch(/20000x20000/);
  });

  it('refuses a JPEG whose own header is over the pixel limit, whatever its dictionary says', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#fff' } }).jpeg().toBuffer();
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    jpeg.writeUInt16BE(30_000, sof + 5);
    jpeg.writeUInt16BE(30_000, sof + 7);
    const pdf = pdfWith(stream('/Subtype /Image /Width 64 /Height 64 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode', jpeg));
    expect((await refusal(pdf)).message).toMatch(/30000x30000 pixels/);
    const flated = pdfWith(stream('/Subtype /Image /Width 64 /Height 64 /Filter [/FlateDecode /DCTDecode]', zlib.deflateSync(jpeg)));
    expect((await refusal(flated)).message).toMatch(/FlateDecode \+|DCTDecode/);
  });

  it('finds a stream hidden inside another object, where the cross-reference table may point', async () => {
    // Inside another stream's data, which a reading that skips stream data by its length never looks at.
    const hidden = Buffer.from(`9 0 obj\n${stream('/Filter /FlateDecode', deflateRun(0x20, GIB))}\nendobj\n`, 'latin1');
    const pdf = pdfWith(stream('', hidden));
    expect((await refusal(pdf)).message).toMatch(/decompression bomb/);
  });

  it('reads /F as the filter, as pdf.js does, and resolves an indirect /Length', async () => {
    expect((await refusal(pdfWith(stream('/F /FlateDecode', deflateRun(0x20, GIB))))).message).toMatch(/FlateDecode/);
    const data = deflateRun(0x20, GIB).toString('latin1');
    const indirect = pdfWith(`<< /Filter /Fl /Length 5 0 R >>\nstream\n${data}\nendstream`, `${data.length}`);
    expect((await refusal(indirect)).message).toMatch(/Fl\b/);
  });

  it('decodes to the end of the file when a length cannot be resolved, so that a false endstream hides nothing', async () => {
    // A stored (uncompressed) deflate block carries the keyword as is, and the data stays valid.
    const stored = zlib.deflateRawSync(Buffer.from('\nendstream\n'), { level: 0, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const bomb = deflateRun(0x20, GIB);
    const data = Buffer.concat([bomb.subarray(0, 2), stored, bomb.subarray(2)]);
    const pdf = pdfWith(`<< /Filter /FlateDecode /Length 99 0 R >>\nstream\n${data.toString('latin1')}\nendstream`);
    expect((await refusal(pdf)).message).toMatch(/decompression bomb/);
  });

  it.each(['1.3', '1.4', '1.7', '1.7ext3'] as const)('decrypts, as pdf.js would, a bomb in a PDF encrypted for its owner only (PDF %s)', async (version) => {
    const pdf = await encryptedBombPdf(version);
    expect(pdf.includes('/Encrypt')).toBe(true);
    expect((await refusal(pdf)).message).toMatch(/decompression bomb/);
  });

  it('lets an encrypted invoice through, and one that needs a password, which pdf.js will not decode either', async () => {
    expect((await checkStreams(await encryptedBombPdf('1.7', 1_000_000), LIMITS)).decodedBytes).toBeGreaterThanOrEqual(1_000_000);
    expect((await checkStreams(await invoicePdf(EU_INVOICE, { userPassword: 'secret' }), LIMITS)).decodedBytes).toBeLessThan(100_000);
  });

  it('refuses a stream whose dictionary cannot be read rather than leave it unchecked', async () => {
    const err = await checkStreams(pdfWith('<< /Filter /FlateDecode /Length 3 (unterminated >>\nstream\nabc\nendstream'), LIMITS).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unreadable_document' });
    expect((err as Error).message).toMatch(/dictionary cannot be read/);
  });
});
