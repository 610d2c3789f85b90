import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DocumentError } from '../../src/errors.js';
import { decodeFile } from '../../src/extraction/input.js';
import { createPipeline, type ExtractionInfo, type Pipeline, type PipelineResult } from '../../src/extraction/pipeline.js';
import { documentText } from '../../src/extraction/text.js';
import {
  blankPdf,
  bombPng,
  EU_EXPECTED,
  EU_INVOICE,
  imageOnlyPdf,
  invoicePdf,
  layoutPdf,
  MY_RECEIPT,
  MY_RECEIPT_EXPECTED,
  photoJpeg,
  renderPage,
  sheet,
  US_EXPECTED,
  tillRoll,
  US_INVOICE,
  webp,
  type Layout,
} from '../fixtures/documents.js';
import { brokenPagePdf } from '../hostile/pdf-builder.js';

const config = { ...loadConfig({}), maxPages: 5, maxImagePixels: 40_000_000, ocrTimeoutMs: 60_000, ocrWorkers: 2, ocrQueueMax: 8 };
const seen: ExtractionInfo[] = [];
let pipeline: Pipeline;
let euPdf: Buffer;
let usPdf: Buffer;

beforeAll(async () => {
  pipeline = createPipeline(config, { onExtraction: (info) => seen.push(info) });
  [euPdf, usPdf] = await Promise.all([invoicePdf(EU_INVOICE), invoicePdf(US_INVOICE)]);
});

afterAll(() => pipeline.close());

function values(result: PipelineResult): Record<string, string> {
  return Object.fromEntries(result.fields.map((f) => [f.field, f.value]));
}

/** Decodes through the request path first, as the HTTP layer does. */
function extract(bytes: Buffer, fileName: string) {
  return pipeline.extract(decodeFile({ file: bytes.toString('base64'), file_name: fileName }));
}

async function failure(promise: Promise<unknown>): Promise<DocumentError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DocumentError);
  return err as DocumentError;
}

describe('text PDFs', () => {
  it('reads every canonical field of a European invoice from the text layer', async () => {
    const result = await extract(euPdf, 'eu.pdf');
    expect(result.pages).toBe(1);
    expect(result.ocrPages).toBe(0);
    expect(values(result)).toMatchObject({ ...EU_EXPECTED, vendor_address: 'Hauptstrasse 12, 10115 Berlin, Germany', payment_terms: '30 days net' });
    const number = result.fields.find((f) => f.field === 'invoice_number')!;
    expect(number).toMatchObject({ confidence: 95, explanation: "label 'Invoice No.' on page 1, value to the right", page: 1 });
    expect(number.bbox!.x).toBeGreaterThan(0.7);
    expect(number.bbox!.x).toBeLessThan(0.76);
    expect(number.bbox!.y).toBeGreaterThan(0.11);
    expect(number.bbox!.y).toBeLessThan(0.13);
    expect(result.confidence).toBeGreaterThanOrEqual(85);
    expect(documentText(result.document)).toContain('Invoice No.:\tINV-2026-0042\n');
    expect(seen.at(-1)).toMatchObject({ fileType: 'application/pdf', path: 'text', pages: 1 });
  });

  it('reads a US invoice with written-out and month-first dates and dollar amounts', async () => {
    expect(values(await extract(usPdf, 'us.pdf'))).toMatchObject(US_EXPECTED);
  });

  it('reads later pages of a multi-page PDF', async () => {
    const result = await extract(await invoicePdf(EU_INVOICE, { extraPages: 2 }), 'multi.pdf');
    expect(result.pages).toBe(3);
    expect(result.document.pages.map((p) => p.source)).toEqual(['text_layer', 'text_layer', 'text_layer']);
    expect(documentText(result.document).split('\f')[2]).toMatch(/^Page 3, line 1: terms/);
  });
});

describe('pictures on text pages', () => {
  /** An invoice whose text layer holds the invoice, and whose footer (company, IBAN, VAT number) is a picture at 200 dpi. */
  async function footerPictureInvoice(): Promise<Buffer> {
    const footer: Layout = { width: 495, height: 40, texts: [{ text: 'Lieferant GmbH, Musterstrasse 1, 80333 Munich', x: 10, y: 8, size: 10 }, { text: 'IBAN DE89 3704 0044 0532 0130 00, VAT DE123456789', x: 10, y: 24, size: 10 }] };
    const png = await renderPage(await layoutPdf(footer), 200);
    const invoice = sheet([['Invoice No.', 'R-2026-7'], ['Invoice Date', '03.03.2026'], ['Net', '100.00'], ['VAT 19%', '19.00'], ['Total EUR', '119.00']]);
    return layoutPdf(invoice, [], [{ png, x: 50, y: 740, width: 495 }]);
  }

  it('reads the words of a picture on a text page (a footer set as an image) with the text layer', async () => {
    const result = await extract(await footerPictureInvoice(), 'footer.pdf');
    expect(result.ocrPages).toBe(0);
    expect(result.document.pages[0]).toMatchObject({ source: 'text_layer', pictures: 1 });
    const iban = result.fields.find((f) => f.field === 'iban');
    expect(iban).toMatchObject({ value: 'DE89370400440532013000', page: 1 });
    expect(iban!.bbox!.y).toBeGreaterThan(0.85);
    expect(values(result)).toMatchObject({ invoice_number: 'R-2026-7', total_amount: '119.00', vendor_tax_id: 'DE123456789' });
    // The text layer's lines stay as they were: nothing is read twice.
    expect(documentText(result.document).match(/Invoice No\./g)).toHaveLength(1);
  });

  it('does not read a photo on a text page', async () => {
    const side = 600;
    const noise = Buffer.from(Array.from({ length: side * side * 3 }, (_, i) => ((Math.imul(i, 2654435761) >>> 24) ^ (i * 31)) & 0xff));
    const photo = await sharp(noise, { raw: { width: side, height: side, channels: 3 } }).png().toBuffer();
    const invoice = sheet([['Invoice No.', 'R-2026-7'], ['Total EUR', '119.00']]);
    const result = await extract(await layoutPdf(invoice, [], [{ png: photo, x: 50, y: 400, width: 200 }]), 'photo.pdf');
    expect(result.document.pages[0]!.pictures).toBeUndefined();
    expect(values(result)).toMatchObject({ invoice_number: 'R-2026-7', total_amount: '119.00' });
  });

  it('leaves a text page without pictures to its text layer alone', async () => {
    const result = await extract(euPdf, 'eu.pdf');
    expect(result.document.pages[0]!.pictures).toBeUndefined();
  });
});

describe('scans and photos (OCR)', () => {
  it('reads a 300-dpi scanned PNG', async () => {
    const result = await extract(await renderPage(euPdf, 300), 'scan.png');
    expect(result.ocrPages).toBe(1);
    expect(result.document.pages[0]!.reread).toBeUndefined();
    expect(values(result)).toMatchObject(EU_EXPECTED);
    const total = result.fields.find((f) => f.field === 'total_amount')!;
    expect(total.confidence).toBeGreaterThan(70);
    expect(total.confidence).toBeLessThan(95);
    expect(seen.at(-1)).toMatchObject({ fileType: 'image/png', path: 'ocr' });
  });

  it('reads a clean scan once, and a page whose key fields are in doubt a second time, for scattered words', async () => {
    const clean = await extract(await renderPage(await layoutPdf(MY_RECEIPT), 300), 'receipt.png');
    expect(values(clean)).toMatchObject({ vendor_name: MY_RECEIPT_EXPECTED.vendor_name, invoice_date: MY_RECEIPT_EXPECTED.invoice_date, total_amount: MY_RECEIPT_EXPECTED.total_amount });
    expect(clean.document.pages[0]!.reread).toBeUndefined();
    expect(seen.at(-1)).toMatchObject({ fileType: 'image/png', secondReading: false });
    const note = await extract(await renderPage(await layoutPdf(tillRoll(['KEDAI BUKU MAJU SDN BHD', 'THANK YOU', 'PLEASE COME AGAIN'])), 300), 'note.png');
    expect(note.document.pages[0]!.lines.map((l) => l.text)).toContain('THANK YOU');
    expect(note.document.pages[0]!.reread?.map((l) => l.text).join(' ')).toMatch(/THANK YOU/);
    expect(seen.at(-1)).toMatchObject({ fileType: 'image/png', secondReading: true });
  });

  it('reads the page of a one-page scanned PDF a second time too when its key fields are in doubt', async () => {
    const note = await renderPage(await layoutPdf(tillRoll(['KEDAI BUKU MAJU SDN BHD', 'THANK YOU', 'PLEASE COME AGAIN'])), 300);
    const result = await extract(await imageOnlyPdf(note), 'note.pdf');
    expect(result.ocrPages).toBe(1);
    expect(result.document.pages[0]!.reread?.map((l) => l.text).join(' ')).toMatch(/THANK YOU/);
    expect(seen.at(-1)).toMatchObject({ fileType: 'application/pdf', secondReading: true });
  });

  it('turns an EXIF-rotated phone photo upright before reading it', async () => {
    const jpeg = await photoJpeg(await renderPage(usPdf, 200));
    const meta = await sharp(jpeg).metadata();
    expect(meta.orientation).toBe(6);
    expect(meta.width! > meta.height!).toBe(true);
    expect(values(await extract(jpeg, 'photo.jpg'))).toMatchObject(US_EXPECTED);
  });

  it('reads a WebP', async () => {
    expect(values(await extract(await webp(await renderPage(euPdf, 200)), 'scan.webp'))).toMatchObject(EU_EXPECTED);
  });

  it('OCRs a PDF page that has no text layer', async () => {
    const scanned = await imageOnlyPdf(await renderPage(usPdf, 200));
    const result = await extract(scanned, 'scanned.pdf');
    expect(result.ocrPages).toBe(1);
    expect(result.document.pages[0]!.source).toBe('ocr');
    expect(values(result)).toMatchObject(US_EXPECTED);
  });

  it('OCRs a small screenshot after upscaling it', async () => {
    const small = await sharp(await renderPage(usPdf, 72)).png().toBuffer();
    const result = await extract(small, 'small.png');
    expect(values(result)).toMatchObject({ invoice_number: '10234', total_amount: '1336.35', currency: 'USD' });
  });
});

describe('documents that cannot be read', () => {
  it('fails a truncated PDF as unreadable_document', async () => {
    const err = await failure(extract(euPdf.subarray(0, 300), 'cut.pdf'));
    expect(err.code).toBe('unreadable_document');
    expect(err.message).toMatch(/^The PDF cannot be read \(.+\); it may be corrupt or truncated\.$/);
  });

  it('fails a password-protected PDF as encrypted_document', async () => {
    const err = await failure(extract(await invoicePdf(EU_INVOICE, { userPassword: 'secret' }), 'locked.pdf'));
    expect(err.code).toBe('encrypted_document');
    expect(err.message).toBe('The PDF is password-protected; send it without a password.');
  });

  it('fails at the page that cannot be read, with the pages before it done, though later pages were read ahead', async () => {
    const err = await failure(extract(brokenPagePdf(5, 3), 'broken-page.pdf'));
    expect(err.code).toBe('unreadable_document');
    expect(err.pages).toBe(2);
    expect(err.message).toMatch(/^Page 3 of the PDF cannot be read: /);
  });

  it('fails a PDF over the page limit before reading any page', async () => {
    const err = await failure(extract(await blankPdf(6), 'long.pdf'));
    expect(err.code).toBe('too_many_pages');
    expect(err.message).toBe('The PDF has 6 pages; at most 5 are accepted.');
  });

  it('refuses a decompression bomb from its header', async () => {
    const bomb = bombPng(100_000, 100_000);
    expect(bomb.length).toBeLessThan(200);
    const err = await failure(extract(bomb, 'bomb.png'));
    expect(err.code).toBe('image_too_large');
    expect(err.message).toBe('The image is 100000x100000 pixels (10,000,000,000); at most 40,000,000 pixels are accepted.');
  });

  it('fails a corrupt image as unreadable_document', async () => {
    const png = await renderPage(euPdf, 50);
    const err = await failure(extract(Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 7)]), 'broken.png'));
    expect(err.code).toBe('unreadable_document');
    expect(err.message).toMatch(/^The image cannot be decoded: /);
  });

  it('fails a document without any text as no_text_found', async () => {
    const blank = await sharp({ create: { width: 800, height: 1000, channels: 3, background: '#ffffff' } }).png().toBuffer();
    const err = await failure(extract(blank, 'blank.png'));
    expect(err.code).toBe('no_text_found');
  });
});
