import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareImage } from '../../src/extraction/image.js';
import { decodeFile } from '../../src/extraction/input.js';
import type { OcrLanguage } from '../../src/extraction/ocr-languages.js';
import { skewOf } from '../../src/extraction/orientation.js';
import { pageLanguage } from '../../src/extraction/page-language.js';
import type { PipelineResult } from '../../src/extraction/pipeline.js';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { pipelineFor } from '../support/pipeline.js';
import { DE_INVOICE, imageOnlyPdf, layoutPdf, layoutWords, MY_RECEIPT, MY_RECEIPT_EXPECTED, renderPage, scannedPagePdf, sheet, type Layout } from '../fixtures/documents.js';

/**
 * Scans as they come: turned or tilted pages read upright, pages in other languages than English
 * read with their accents and umlauts, without being told the language.
 */

const FR_INVOICE: Layout = sheet([
  'Société Générale Éclairage SARL',
  '12 rue de la Prévôté',
  '75003 Paris',
  'Facture n° F-2024-0117',
  ['Date de facture', '12/03/2024'],
  ['Client', 'Boulangerie Lefèvre'],
  ['Montant HT', '1 000,00 €'],
  ['TVA 20 %', '200,00 €'],
  ['Total TTC', '1 200,00 €'],
]);

const fieldsOf = (result: PipelineResult) => Object.fromEntries(result.fields.map((f) => [f.field, f.value]));

const turned = (png: Buffer, degrees: number) => sharp(png).rotate(degrees, { background: '#ffffff' }).png().toBuffer();

describe('the skew of a page', () => {
  it('is the angle its text lines slope at, to a few tenths of a degree', async () => {
    const png = await renderPage(await layoutPdf(DE_INVOICE), 150);
    for (const degrees of [0, 2.5, -5]) {
      const { data, info } = await sharp(await turned(png, degrees)).grayscale().raw().toBuffer({ resolveWithObject: true });
      expect(Math.abs(skewOf(data, info.width, info.height) - degrees)).toBeLessThanOrEqual(0.3);
    }
  });
});

describe('a tilted page prepared for OCR', () => {
  it('is levelled, and keeps the page as it came for a second reading; an untilted page is prepared once', async () => {
    const png = await renderPage(await layoutPdf(DE_INVOICE), 150);
    const tilted = await turned(png, 4);
    const image = await prepareImage(tilted, { maxImagePixels: 50_000_000 });
    expect(Math.abs(image.rotation! - -4)).toBeLessThanOrEqual(0.3);
    expect(image.unlevelled).toMatchObject({ rotation: 0 });
    expect(image.unlevelled!.pgm.equals(image.pgm)).toBe(false);
    expect((await prepareImage(png, { maxImagePixels: 50_000_000 })).unlevelled).toBeUndefined();
  });
});

describe('the language of a page', () => {
  const all: OcrLanguage[] = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl'];

  it('is told by the words of its labels, even as the English model spells them', () => {
    expect(pageLanguage(layoutWords(DE_INVOICE), all)).toBe('de');
    expect(pageLanguage(layoutWords(FR_INVOICE), all)).toBe('fr');
  });

  it('is no other language for an English or a Malay receipt', () => {
    const receipt = sheet(['KEDAI MAJU SDN BHD', ['TOTAL', '42.42'], ['ROUNDING ADJ', '-0.02'], ['CASH', '50.00'], ['CHANGE', '7.60'], 'Thank you, please come again']);
    expect(pageLanguage(layoutWords(receipt), all)).not.toMatch(/de|fr|es|it|nl|pt|pl/);
  });

  it('is only ever one the server reads', () => {
    expect(pageLanguage(layoutWords(DE_INVOICE), ['en', 'fr'])).toBeNull();
  });
});

describe('scans in other languages', () => {
  const pipeline = pipelineFor(1);
  let germanScan: Buffer;
  let frenchScan: Buffer;

  beforeAll(async () => {
    [germanScan, frenchScan] = await Promise.all([layoutPdf(DE_INVOICE).then((pdf) => renderPage(pdf, 300)), layoutPdf(FR_INVOICE).then((pdf) => renderPage(pdf, 300))]);
  });

  const extract = (png: Buffer, languages?: OcrLanguage[]) => pipeline().extract({ ...decodeFile({ file: png.toString('base64'), file_name: 'scan.png' }), languages });

  it('reads a German scan with its umlauts and ß, without being told its language', async () => {
    const found = fieldsOf(await extract(germanScan));
    expect(found).toMatchObject({ vendor_name: 'Lieferant GmbH', vendor_address: 'Lieferantenstraße 20, 80333 München', 'line_items.0.description': 'Trennblätter A4', total_amount: '529.87' });
  });

  it('reads a French scan with its accents, without being told its language', async () => {
    const found = fieldsOf(await extract(frenchScan));
    expect(found).toMatchObject({ vendor_name: 'Société Générale Éclairage SARL', vendor_address: '12 rue de la Prévôté, 75003 Paris', total_amount: '1200.00', invoice_date: '2024-03-12' });
  });

  it('reads in the languages it is told, and only those', async () => {
    const english = await extract(germanScan, ['en']);
    expect(english.document.pages[0]!.lines.map((l) => l.text).join('\n')).not.toContain('München');
    const german = await extract(germanScan, ['de']);
    expect(fieldsOf(german).vendor_address).toBe('Lieferantenstraße 20, 80333 München');
  });
});

describe('turned and tilted scans', () => {
  const pipeline = pipelineFor(1);
  let scan: Buffer;
  let upright: PipelineResult;

  beforeAll(async () => {
    scan = await renderPage(await layoutPdf(FR_INVOICE), 300);
    upright = await pipeline().extract({ ...decodeFile({ file: scan.toString('base64'), file_name: 'scan.png' }), languages: ['fr'] });
  });

  const read = async (degrees: number) => pipeline().extract({ ...decodeFile({ file: (await turned(scan, degrees)).toString('base64'), file_name: 'scan.png' }), languages: ['fr'] });

  it('reads the upright page as it is', () => {
    expect(upright.document.pages[0]!.size!.rotation).toBe(0);
    expect(fieldsOf(upright)).toMatchObject({ vendor_name: 'Société Générale Éclairage SARL', total_amount: '1200.00' });
  });

  it.each([
    [90, 270],
    [180, 180],
    [270, 90],
  ])('reads a page turned %i° with the fields of the upright page, and says it turned it %i°', async (degrees, back) => {
    const result = await read(degrees);
    expect(fieldsOf(result)).toEqual(fieldsOf(upright));
    expect(result.document.pages[0]!.size!.rotation).toBe(back);
  });

  it.each([2, -4, 7])('reads a page tilted %i° with the fields of the upright page, levelled', async (degrees) => {
    const result = await read(degrees);
    expect(fieldsOf(result)).toEqual(fieldsOf(upright));
    // Turned back as far: a page tilted 7° clockwise is turned 353°.
    const back = (360 - degrees) % 360;
    expect(Math.abs(result.document.pages[0]!.size!.rotation - back)).toBeLessThanOrEqual(0.3);
  });
});

/** Print as a dot-matrix printer makes it: only every other pixel of every other row of the strokes is inked. */
async function dotted(png: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(png).grayscale().raw().toBuffer({ resolveWithObject: true });
  for (let y = 0; y < info.height; y += 1) {
    for (let x = 0; x < info.width; x += 1) if (x % 2 || y % 2) data[y * info.width + x] = 255;
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } }).png().toBuffer();
}

describe('dot-matrix print', () => {
  const pipeline = pipelineFor(1);
  let receipt: Buffer;

  beforeAll(async () => {
    receipt = await dotted(await renderPage(await layoutPdf(MY_RECEIPT), 300));
  });

  // Read as they are, the dots make no word at all: the receipt would fail as no_text_found.
  it('is read with its strokes thickened, in an image', async () => {
    const result = await pipeline().extract(decodeFile({ file: receipt.toString('base64'), file_name: 'receipt.png' }));
    expect(fieldsOf(result)).toMatchObject(MY_RECEIPT_EXPECTED);
  });

  it('is read with its strokes thickened, in a scanned PDF', async () => {
    const pdf = await scannedPagePdf(receipt, { box: [184, 200, 227, 440] });
    const result = await pipeline().extract(decodeFile({ file: pdf.toString('base64'), file_name: 'receipt.pdf' }));
    expect(result.document.pages[0]!.source).toBe('ocr');
    expect(fieldsOf(result)).toMatchObject(MY_RECEIPT_EXPECTED);
  });
});

describe('small print', () => {
  const pipeline = pipelineFor(1);

  // A till slip scanned whole on a large sheet: its capitals some 10 pixels high, too small for
  // tesseract, which as the page is reads the tax as 240.00 and two of the three items not at all.
  it('is read enlarged, every field and item right', async () => {
    const slip = await renderPage(await layoutPdf(MY_RECEIPT), 110);
    const sheetScan = await sharp({ create: { width: 1300, height: 1800, channels: 3, background: '#ffffff' } }).composite([{ input: slip, left: 400, top: 300 }]).png().toBuffer();
    const result = await pipeline().extract(decodeFile({ file: sheetScan.toString('base64'), file_name: 'sheet.png' }));
    expect(result.document.pages[0]!.size).toMatchObject({ width: 1950, height: 2700 });
    expect(fieldsOf(result)).toMatchObject(MY_RECEIPT_EXPECTED);
    expect(['0', '1', '2'].map((n) => fieldsOf(result)[`line_items.${n}.amount`])).toEqual(['17.00', '7.60', '15.42']);
  });
});

describe('scanned PDFs', () => {
  const pipeline = pipelineFor(2);

  it('reads the pages side by side on two OCR workers and keeps each in its place', async () => {
    const scans = await Promise.all(['first', 'second', 'third', 'fourth'].map(async (word) => renderPage(await layoutPdf(sheet([`Delivery note, the ${word} page`, ['Reference', `REF-${word.toUpperCase()}`]])), 150)));
    const result = await pipeline().extract(decodeFile({ file: (await imageOnlyPdf(...scans)).toString('base64'), file_name: 'scan.pdf' }));
    expect(result.document.pages.map((p) => [p.number, p.source])).toEqual([[1, 'ocr'], [2, 'ocr'], [3, 'ocr'], [4, 'ocr']]);
    const texts = result.document.pages.map((p) => p.lines.map((l) => l.text).join(' '));
    ['FIRST', 'SECOND', 'THIRD', 'FOURTH'].forEach((word, i) => expect(texts[i]).toContain(`REF-${word}`));
  });
});

describe('languages in the API', () => {
  let api: ApiServer;
  let germanScan: Buffer;

  beforeAll(async () => {
    api = await startApiServer(databases[0]!, { env: { OCR_LANGUAGES: 'en,de' } });
    germanScan = await renderPage(await layoutPdf(DE_INVOICE), 300);
  });

  afterAll(() => api.close());

  it('refuses a language the server does not read, naming the ones it does', async () => {
    const res = await api.call('createExtraction', 'POST', '/v1/extractions', { body: { file: germanScan.toString('base64'), file_name: 'scan.png', languages: ['fr'] } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'invalid_request', message: 'body.languages: fr is not among the languages this server reads (en, de)' } });
  });

  it('reads the scan in the languages the request names', async () => {
    const res = await api.call('createExtraction', 'POST', '/v1/extractions', { body: { file: germanScan.toString('base64'), file_name: 'scan.png', languages: ['de', 'en'] } });
    expect(res.status).toBe(201);
    const body = res.body as { status: string; data: Record<string, string> };
    expect(body.status).toBe('completed');
    expect(body.data.vendor_address).toBe('Lieferantenstraße 20, 80333 München');
  });
});
