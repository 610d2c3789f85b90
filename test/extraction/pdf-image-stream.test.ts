import zlib from 'node:zlib';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareImage } from '../../src/extraction/image.js';
import { streamPicture } from '../../src/extraction/pdf-image-stream.js';
import { Objects } from '../../src/extraction/pdf-objects.js';
import { PdfRef } from '../../src/extraction/pdf-syntax.js';
import { EU_INVOICE, imageOnlyPdf, invoicePdf, renderPage } from '../fixtures/documents.js';
import { pageImage as readPage } from '../fixtures/pdf-pages.js';
import { rawPdf } from '../hostile/pdf-builder.js';

/**
 * A scanned page whose picture is a JPEG, or Flate data with or without PNG predictors, is read
 * from the file's bytes by sharp; any other picture (CMYK, an ICC profile, a Decode array, a
 * mask) is left to pdf.js, and the page still reads as its picture.
 */

const LIMITS = { maxPages: 5, maxImagePixels: 40_000_000 };
/** The image XObject's number in the PDFs written here by hand. */
const IMAGE = new PdfRef(5, 0);

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

/** One A4 page painting nothing but the image object 5, whose dictionary holds `entries` and whose data is `data`. */
function imagePdf(entries: string, data: Buffer): Buffer {
  const content = 'q 595.28 0 0 841.89 0 0 cm /Im0 Do Q';
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.28 841.89] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Type /XObject /Subtype /Image ${entries} /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream`,
  ]);
}

const pageImage = (pdf: Buffer) => readPage(pdf, LIMITS);

/** The first image XObject's reference, in a PDF pdfkit wrote. */
function imageRef(pdf: Buffer): PdfRef {
  const found = /(\d+) 0 obj\s*<<[^>]*\/Subtype \/Image/.exec(pdf.toString('latin1'));
  return new PdfRef(Number(found![1]), 0);
}

const picture = (pdf: Buffer, ref = IMAGE) => streamPicture(new Objects(pdf), ref, LIMITS.maxImagePixels);

let rgb: Raw;
let gray: Raw;

beforeAll(async () => {
  // 100 dpi keeps the pictures small; the rule that sizes them for OCR scales them up alike.
  const scan = await renderPage(await invoicePdf(EU_INVOICE), 100);
  const read = async (channels: 1 | 3) => {
    const image = channels === 1 ? sharp(scan).removeAlpha().grayscale() : sharp(scan).removeAlpha();
    const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  };
  [rgb, gray] = [await read(3), await read(1)];
});

const png = ({ data, width, height }: Raw, channels: 1 | 3) => sharp(data, { raw: { width, height, channels } }).png().toBuffer();
const jpeg = ({ data, width, height }: Raw, channels: 1 | 3) => sharp(data, { raw: { width, height, channels } }).jpeg({ quality: 90 }).toBuffer();
const size = ({ width, height }: Raw) => `/Width ${width} /Height ${height}`;

describe('a JPEG (DCTDecode) scan in a PDF', () => {
  it.each<[string, 1 | 3]>([
    ['colour', 3],
    ['gray', 1],
  ])('is the picture the same JPEG gives when sent as an image, pixel for pixel (%s)', async (_, channels) => {
    const photo = await jpeg(channels === 3 ? rgb : gray, channels);
    const pdf = await imageOnlyPdf(photo);
    const page = await pageImage(pdf);
    const asImage = await prepareImage(photo, LIMITS);
    expect(page.pgm.equals(asImage.pgm)).toBe(true);
  });

  it('is left to pdf.js in CMYK, and still read as its picture', async () => {
    const cmyk = await sharp(rgb.data, { raw: { width: rgb.width, height: rgb.height, channels: 3 } }).toColourspace('cmyk').jpeg().toBuffer();
    const pdf = await imageOnlyPdf(cmyk);
    expect(await picture(pdf, imageRef(pdf))).toBeNull();
    const [page, asImage] = [await pageImage(pdf), await prepareImage(cmyk, LIMITS)];
    expect({ width: page.width, height: page.height }).toEqual({ width: asImage.width, height: asImage.height });
  });
});

describe('a Flate scan in a PDF', () => {
  it('with PNG predictors is read as the PNG it was stored from', async () => {
    const pdf = await imageOnlyPdf(await png(gray, 1));
    expect(await picture(pdf, imageRef(pdf))).toMatchObject({ width: gray.width, height: gray.height, encoded: expect.any(Buffer) });
  });

  it.each<[string, 1 | 3]>([
    ['colour', 3],
    ['gray', 1],
  ])('without a predictor is the picture the same pixels give as a PNG, pixel for pixel (%s)', async (_, channels) => {
    const raw = channels === 3 ? rgb : gray;
    const pdf = imagePdf(`${size(raw)} /ColorSpace /${channels === 3 ? 'DeviceRGB' : 'DeviceGray'} /BitsPerComponent 8 /Filter /FlateDecode`, zlib.deflateSync(raw.data));
    const read = await picture(pdf);
    expect(read && 'channels' in read && read.channels === channels && read.data.equals(raw.data)).toBe(true);
    const page = await pageImage(pdf);
    expect(page.pgm.equals((await prepareImage(await png(raw, channels), LIMITS)).pgm)).toBe(true);
  });

  it('is inflated no further than its picture: more data than the picture holds is left to pdf.js', async () => {
    const long = Buffer.concat([gray.data, Buffer.alloc(gray.data.length * 4, 255)]);
    const pdf = imagePdf(`${size(gray)} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`, zlib.deflateSync(long));
    expect(await picture(pdf)).toBeNull();
  });

  it('with damaged data is left to pdf.js, which reads what it can of it', async () => {
    const stored = await imageOnlyPdf(await png(gray, 1));
    // The image's data is the longest stream; spoiling its middle spoils the zlib stream sharp would read.
    const at = stored.indexOf('stream', stored.indexOf('/Subtype /Image')) + 'stream\n'.length + 2000;
    const damaged = Buffer.from(stored);
    damaged.fill(0x55, at, at + 64);
    const page = await pageImage(damaged);
    expect(page.width).toBeGreaterThan(0);
  });
});

describe('a scan in an encrypted PDF', () => {
  it('is read by pdf.js, which decrypts it: the picture is still the PNG it was stored from', async () => {
    const stored = await png(gray, 1);
    // An owner password only: the file opens without one, its streams encrypted all the same.
    const doc = new PDFDocument({ size: 'A4', margin: 0, ownerPassword: 'owner', pdfVersion: '1.7' });
    doc.image(stored, 0, 0, { width: doc.page.width, height: doc.page.height });
    const pdf = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      doc.on('data', (c: Buffer) => chunks.push(c));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      doc.end();
    });
    const page = await pageImage(pdf);
    expect(page.pgm.equals((await prepareImage(stored, LIMITS)).pgm)).toBe(true);
  });
});

describe('pictures whose samples are not the picture as it stands', () => {
  const flate = (entries: string) => imagePdf(`${size(gray)} /BitsPerComponent 8 /Filter /FlateDecode ${entries}`, zlib.deflateSync(gray.data));

  it.each([
    ['an ICC profile', '/ColorSpace [/ICCBased 6 0 R]'],
    ['a Decode array', '/ColorSpace /DeviceGray /Decode [1 0]'],
    ['a soft mask', '/ColorSpace /DeviceGray /SMask 6 0 R'],
    ['a colour key mask', '/ColorSpace /DeviceGray /Mask [0 10]'],
    ['a TIFF predictor', '/ColorSpace /DeviceGray /DecodeParms << /Predictor 2 /Columns 10 >>'],
    ['an indexed colour space', '/ColorSpace [/Indexed /DeviceRGB 1 <000000FFFFFF>]'],
  ])('are left to pdf.js: %s', async (_, entries) => {
    expect(await picture(flate(entries))).toBeNull();
  });

  it('are read by pdf.js as it paints them: a gray picture stored inverted with a Decode array reads upright', async () => {
    const inverted = Buffer.from(gray.data.map((v) => 255 - v));
    const pdf = imagePdf(`${size(gray)} /ColorSpace /DeviceGray /BitsPerComponent 8 /Decode [1 0] /Filter /FlateDecode`, zlib.deflateSync(inverted));
    const page = await pageImage(pdf);
    expect(page.pgm.equals((await prepareImage(await png(gray, 1), LIMITS)).pgm)).toBe(true);
  });
});
