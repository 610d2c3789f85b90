import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { openPdf } from '../../src/extraction/pdf.js';
import sharp from 'sharp';
import { EU_INVOICE, invoicePdf, layoutPdf, renderPage, sheet } from '../fixtures/documents.js';

function hugePage(): Promise<Buffer> {
  const doc = new PDFDocument({ size: [14_400, 14_400], margin: 0 });
  doc.rect(100, 100, 1000, 1000).fill('#000000');
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.end();
  });
}

describe('openPdf', () => {
  it('reads text-layer words with boxes normalised to the page, top-left origin', async () => {
    const pdf = await openPdf(await invoicePdf(EU_INVOICE), { maxPages: 5, maxImagePixels: 40_000_000 });
    const words = (await pdf.words(1))!;
    await pdf.close();
    const vendor = words.find((w) => w.text === 'ACME')!;
    expect(vendor.confidence).toBe(100);
    // pdfkit placed the 20-pt vendor name at (50, 50) pt on a 595 x 842 pt page.
    expect(vendor.bbox.x).toBeCloseTo(50 / 595.28, 2);
    expect(vendor.bbox.y).toBeGreaterThan(50 / 841.89 - 0.005);
    expect(vendor.bbox.y).toBeLessThan(70 / 841.89);
    expect(vendor.bbox.height).toBeCloseTo(20 / 841.89, 3);
    const gmbh = words.find((w) => w.text === 'GmbH')!;
    expect(gmbh.bbox.x).toBeGreaterThan(vendor.bbox.x + vendor.bbox.width);
  });

  it('finds the pictures of a text page that may hold text, and renders print but not a photo for OCR', async () => {
    const print = await renderPage(await layoutPdf({ width: 300, height: 30, texts: [{ text: 'Lieferant GmbH, IBAN DE89 3704 0044 0532 0130 00', x: 10, y: 8, size: 10 }] }), 200);
    const side = 600;
    const noise = Buffer.from(Array.from({ length: side * side * 3 }, (_, i) => ((Math.imul(i, 2654435761) >>> 24) ^ (i * 31)) & 0xff));
    const photo = await sharp(noise, { raw: { width: side, height: side, channels: 3 } }).png().toBuffer();
    const bytes = await layoutPdf(sheet([['Invoice No.', 'R-2026-7'], ['Total EUR', '119.00']]), [], [
      { png: print, x: 50, y: 760, width: 300 },
      { png: photo, x: 50, y: 400, width: 200 },
    ]);
    const pdf = await openPdf(bytes, { maxPages: 5, maxImagePixels: 40_000_000 });
    const pictures = await pdf.pictures(1, (await pdf.words(1))!);
    expect(pictures).toHaveLength(2);
    const [photoArea, printArea] = pictures;
    expect(printArea!.y).toBeCloseTo(760 / 842, 2);
    expect(await pdf.renderArea(1, printArea!)).toMatchObject({ width: expect.any(Number), height: expect.any(Number) });
    expect(await pdf.renderArea(1, photoArea!)).toBeNull();
    await pdf.close();
  });

  it('renders a page with a huge media box within the pixel limit instead of at 300 dpi', async () => {
    const pdf = await openPdf(await hugePage(), { maxPages: 5, maxImagePixels: 4_000_000 });
    expect(await pdf.words(1)).toBeNull();
    const image = await pdf.render(1);
    await pdf.close();
    expect(image.width * image.height).toBeLessThanOrEqual(4_000_000);
    expect(image.width).toBe(image.height);
    expect(image.pgm.length).toBe(image.width * image.height + `P5\n${image.width} ${image.height}\n255\n`.length);
    // The black square sits at 100-1100 pt of 14400: about 7-76 pixels of 2000; the rest is white.
    const header = image.pgm.length - image.width * image.height;
    expect(image.pgm[header + 40 * image.width + 40]).toBeLessThan(30);
    expect(image.pgm[header + 1000 * image.width + 1000]).toBeGreaterThan(240);
  });
});
