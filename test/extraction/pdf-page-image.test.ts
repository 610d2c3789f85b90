import { beforeAll, describe, expect, it } from 'vitest';
import { prepareImage } from '../../src/extraction/image.js';
import type { GrayImage } from '../../src/extraction/types.js';
import { bilevelPng, EU_EXPECTED, EU_INVOICE, imageOnlyPdf, invoicePdf, renderPage, scannedPagePdf, type ScannedPageOptions } from '../fixtures/documents.js';
import { pageImage as readPage } from '../fixtures/pdf-pages.js';
import { pipelineFor } from '../support/pipeline.js';

/**
 * A scanned PDF page is read from its picture as it is, exactly as the same picture sent as an
 * image is; a page that draws anything else is rendered.
 */

const LIMITS = { maxPages: 5, maxImagePixels: 40_000_000 };
/** A 300-dpi A4 page as pdf.js renders it. */
const RENDERED = { width: 2480, height: 3507 };

const pageImage = (pdf: Buffer) => readPage(pdf, LIMITS);

let picture: Buffer;
let asImage: GrayImage;

beforeAll(async () => {
  // 200 dpi, so that the picture's own size (1654 x 2339) tells it apart from a 300-dpi render.
  picture = await renderPage(await invoicePdf(EU_INVOICE), 200);
  asImage = await prepareImage(picture, LIMITS);
});

describe("a scanned PDF page's picture", () => {
  it('is the picture OCR reads when the same scan is sent as an image, pixel for pixel', async () => {
    const page = await pageImage(await imageOnlyPdf(picture));
    expect({ width: page.width, height: page.height }).toEqual({ width: asImage.width, height: asImage.height });
    expect(page.pgm.equals(asImage.pgm)).toBe(true);
  });

  it('is the picture of a black-and-white scan too, one bit a pixel', async () => {
    const bilevel = await bilevelPng(picture);
    const page = await pageImage(await imageOnlyPdf(bilevel));
    expect(page.pgm.equals((await prepareImage(bilevel, LIMITS)).pgm)).toBe(true);
  });

  it.each<[string, ScannedPageOptions]>([
    ['on a page turned 90°', { rotate: 90 }],
    ['on a page turned 180°', { rotate: 180 }],
    ['on a page turned 270°', { rotate: 270 }],
    ['mirrored left to right', { mirror: 'horizontal' }],
    ['mirrored top to bottom', { mirror: 'vertical' }],
  ])('is stood up as the page shows it when stored %s', async (_, options) => {
    const page = await pageImage(await scannedPagePdf(picture, options));
    expect(page.pgm.equals(asImage.pgm)).toBe(true);
  });

  it.each<[string, ScannedPageOptions]>([
    ['text is drawn over it', { stamp: 'PAID' }],
    ['it covers only part of the page', { box: [40, 40, 400, 566] }],
    ['the page holds another picture beside it', { twice: true }],
  ])('is not taken alone when %s: the page is rendered', async (_, options) => {
    const page = await pageImage(await scannedPagePdf(picture, options));
    expect({ width: page.width, height: page.height }).toEqual(RENDERED);
  });
});

describe('a scanned PDF through the pipeline', () => {
  const pipeline = pipelineFor(1);

  it('gives the fields the same scan gives as a PNG, boxed alike, its page sized in points', async () => {
    const scan = await renderPage(await invoicePdf(EU_INVOICE), 300);
    const [fromPng, fromPdf] = [await pipeline().extract({ bytes: scan, contentType: 'image/png' }), await pipeline().extract({ bytes: await imageOnlyPdf(scan), contentType: 'application/pdf' })];
    expect(Object.fromEntries(fromPdf.fields.map((f) => [f.field, f.value]))).toMatchObject(EU_EXPECTED);
    expect(fromPdf.fields).toEqual(fromPng.fields);
    expect(fromPdf.document.pages[0]!.lines).toEqual(fromPng.document.pages[0]!.lines);
    expect(fromPdf.document.pages[0]!.size).toEqual({ width: 595.28, height: 841.89, rotation: 0 });
  });

  it('reports the page turned as the PDF turns it, and reads it upright', async () => {
    const scan = await renderPage(await invoicePdf(EU_INVOICE), 300);
    const result = await pipeline().extract({ bytes: await scannedPagePdf(scan, { rotate: 90 }), contentType: 'application/pdf' });
    expect(result.document.pages[0]!.size).toEqual({ width: 595.28, height: 841.89, rotation: 90 });
    expect(Object.fromEntries(result.fields.map((f) => [f.field, f.value]))).toMatchObject(EU_EXPECTED);
  });
});
