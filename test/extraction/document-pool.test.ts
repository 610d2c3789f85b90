import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDocumentPool } from '../../src/extraction/document-pool.js';
import { prepareImage } from '../../src/extraction/image.js';
import type { GrayImage } from '../../src/extraction/types.js';
import { renderPage, smallInvoicePdf } from '../fixtures/documents.js';

const config = { ...loadConfig({}), documentWorkers: 1 };
const pool = createDocumentPool(config);
afterAll(() => pool.close());

/** The picture as OCR reads it, and the one it came from when it was levelled. */
function pictures(image: GrayImage): Buffer[] {
  return [image.pgm, ...(image.unlevelled ? [image.unlevelled.pgm] : [])];
}

describe('an uploaded image prepared in a document worker', () => {
  it.each([0, 4])('is the picture prepareImage makes on this thread, as Buffers, with the upload left as it was (tilted %d degrees)', async (degrees) => {
    const page = await renderPage(await smallInvoicePdf(), 150);
    const upload = await sharp(page).rotate(degrees, { background: '#ffffff' }).png().toBuffer();
    const sent = Buffer.from(upload);
    const there = await pool.prepareImage(upload);
    const here = await prepareImage(upload, { maxImagePixels: config.maxImagePixels });
    expect(Boolean(there.unlevelled)).toBe(degrees !== 0);
    expect(pictures(there).every((pgm) => Buffer.isBuffer(pgm))).toBe(true);
    expect(pictures(there)).toEqual(pictures(here));
    expect({ ...there, pgm: null, unlevelled: null }).toEqual({ ...here, pgm: null, unlevelled: null });
    expect(upload.equals(sent)).toBe(true);
  });
});
