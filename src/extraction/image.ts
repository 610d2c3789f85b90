import sharp from 'sharp';
import { DocumentError } from '../errors.js';
import { MIN_SKEW, skewOf, turn } from './orientation.js';
import type { GrayImage } from './types.js';

export interface ImageLimits {
  maxImagePixels: number;
}

/** Below this long side, text in a photo or screenshot is too small for the LSTM model to read well. */
const MIN_LONG_SIDE = 1800;
const MAX_UPSCALE = 3;
/** Past this long side OCR only gets slower: a 300-dpi A4 page is 3508 pixels tall. */
export const MAX_LONG_SIDE = 4200;

/** Pixels darker than this are ink when looking for rules. */
const INK = 160;
/** A horizontal rule runs at least this fraction of the page's long side: longer than any glyph stroke. */
const RULE_LENGTH = 1 / 30;
/** A frame's upright side spans at least this fraction of the long side: taller than a text line's stroke. */
const SIDE_LENGTH = 1 / 100;
/** Rules are at most this fraction of the long side thick; filled areas are thicker. */
const RULE_THICKNESS = 1 / 300;
/** Share of a rule's length that must be thin: it may cross a frame's side or touch a letter. */
const THIN_SHARE = 0.9;

/** Calls `visit(start, end)` for each run of ink along the row that begins at offset `row`, from x = start to end - 1. */
function inkRuns(gray: Buffer, row: number, width: number, visit: (start: number, end: number) => void): void {
  let start = 0;
  for (let x = 0; x <= width; x += 1) {
    if (x < width && gray[row + x]! < INK) continue;
    if (x > start) visit(start, x);
    start = x + 1;
  }
}

/** The length of the run of ink along the row through each of its pixels, 0 on white. */
function alongRow(gray: Buffer, row: number, width: number, out: Uint16Array): void {
  out.fill(0);
  inkRuns(gray, row, width, (start, end) => out.fill(Math.min(end - start, 65535), start, end));
}

/** Whether the run of ink down the column through `p` is at most `thin` pixels long. */
function thinDown(gray: Buffer, width: number, p: number, thin: number): boolean {
  let length = 1;
  for (let k = p - width; k >= 0 && gray[k]! < INK && length <= thin; k -= width) length += 1;
  for (let k = p + width; k < gray.length && gray[k]! < INK && length <= thin; k += width) length += 1;
  return length <= thin;
}

/**
 * Whitens the thin ruled lines of tables, frames and underlines. Tesseract reads a frame's side
 * that touches a word as part of it ("|Total" comes out as junk or not at all) and a rule under
 * a row as letters; pdftotext, which templates are written for, never sees rules. Long runs of
 * ink that are thin along nearly all their length go, and upright thin runs that meet one of
 * them, as a frame's sides and a table's column lines do; letter stems, which meet no rule,
 * and filled bars, which are thick, stay.
 *
 * Both passes walk the page row by row, so that memory is read in order: a 300-dpi page is over
 * 8 million pixels. It runs in a document worker, which has nothing else to do meanwhile.
 */
export function eraseRules(gray: Buffer, width: number, height: number): void {
  const long = Math.max(width, height);
  const ruleLength = long * RULE_LENGTH;
  const sideLength = long * SIDE_LENGTH;
  const thin = Math.max(2, long * RULE_THICKNESS);
  // Pass 1: which of the long runs of ink along the rows are rules.
  const rule = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    inkRuns(gray, row, width, (start, end) => {
      const length = end - start;
      if (length < ruleLength) return;
      let thinPixels = 0;
      for (let k = row + start; k < row + end; k += 1) if (thinDown(gray, width, k, thin)) thinPixels += 1;
      if (thinPixels >= THIN_SHARE * length) rule.fill(1, row + start, row + end);
    });
  }
  // Pass 2: per column, where the current upright run began, whether it meets a rule so far and
  // whether it stays thin; a run that qualifies is whitened back up its column when it ends.
  // A row is whitened only once read, so that the next row's run ends are judged on the page as it was.
  // Each row's runs along it are measured as the row is reached: rows below are still untouched, and a
  // page-sized array for them would hold 17 MB more per page being prepared.
  const runStart = new Int32Array(width).fill(-1);
  const meets = new Uint8Array(width);
  const upright = new Uint8Array(width);
  const along = new Uint16Array(width);
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    alongRow(gray, row, width, along);
    for (let x = 0; x < width; x += 1) {
      const p = row + x;
      if (gray[p]! < INK) {
        if (runStart[x] === -1) {
          runStart[x] = y;
          meets[x] = 0;
          upright[x] = 1;
        }
        if (rule[p]) meets[x] = 1;
        else if (along[x]! > thin) upright[x] = 0;
        if (y === height - 1 || gray[p + width]! >= INK) {
          if (y - runStart[x]! + 1 >= sideLength && meets[x] && upright[x]) {
            for (let k = runStart[x]! * width + x; k <= p; k += width) gray[k] = 255;
          }
          runStart[x] = -1;
        }
      }
      if (rule[p]) gray[p] = 255;
    }
  }
}

const PGM_HEADER = /^P5\n(\d+) (\d+)\n255\n/;

/** Grayscale pixels as the binary PGM (P5) OCR reads. */
export function encodePgm(gray: Buffer, width: number, height: number, rotation = 0): GrayImage {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  return { width, height, pgm: Buffer.concat([header, gray]), rotation };
}

/** A page ready for OCR: its text lines levelled when they are tilted, its ruled lines erased. */
async function pgm(gray: Buffer, width: number, height: number): Promise<GrayImage> {
  const skew = skewOf(gray, width, height);
  if (Math.abs(skew) < MIN_SKEW) {
    eraseRules(gray, width, height);
    return encodePgm(gray, width, height);
  }
  const page = await turn(gray, width, height, -skew);
  eraseRules(page.gray, page.width, page.height);
  eraseRules(gray, width, height);
  return { ...encodePgm(page.gray, page.width, page.height, -skew), unlevelled: encodePgm(gray, width, height) };
}

/** Every this many rows is counted by inkShare: print spans many rows, and a page is millions of pixels. */
const INK_SAMPLE_ROWS = 4;

/** The share of a prepared page's pixels that are ink, from every INK_SAMPLE_ROWS-th row: how much print there is to read. */
export function inkShare(image: GrayImage): number {
  const gray = pixelsOf(image);
  const { width } = image;
  let ink = 0;
  let counted = 0;
  for (let row = 0; row < gray.length; row += INK_SAMPLE_ROWS * width) {
    for (let p = row; p < row + width; p += 1) if (gray[p]! < INK) ink += 1;
    counted += width;
  }
  return counted ? ink / counted : 0;
}

/** The gray pixels of a prepared page, without their PGM header. */
export function pixelsOf(image: GrayImage): Buffer {
  const header = PGM_HEADER.exec(image.pgm.subarray(0, 32).toString('latin1'))![0];
  return image.pgm.subarray(header.length);
}

/**
 * Each pixel the darkest of its 3 x 3 neighbourhood: strokes grow a pixel on each side. Dot-matrix
 * print and a thermal till's thin, faint strokes break up when tesseract binarises them; grown,
 * their dots join into letters.
 */
export function thickenStrokes(image: GrayImage): GrayImage {
  const { width, height } = image;
  const gray = pixelsOf(image);
  const across = Buffer.alloc(gray.length);
  for (let row = 0; row < gray.length; row += width) {
    for (let x = 0; x < width; x += 1) {
      const p = row + x;
      across[p] = Math.min(gray[p]!, x > 0 ? gray[p - 1]! : 255, x < width - 1 ? gray[p + 1]! : 255);
    }
  }
  const out = Buffer.alloc(gray.length);
  for (let p = 0; p < gray.length; p += 1) {
    out[p] = Math.min(across[p]!, p >= width ? across[p - width]! : 255, p + width < gray.length ? across[p + width]! : 255);
  }
  return encodePgm(out, width, height, image.rotation);
}

/** A prepared page turned a further `degrees` clockwise (a quarter or half turn), for a page that reads upside down or sideways. */
export async function turnPage(image: GrayImage, degrees: number): Promise<GrayImage> {
  const page = await turn(pixelsOf(image), image.width, image.height, degrees);
  return encodePgm(page.gray, page.width, page.height, (image.rotation ?? 0) + degrees);
}

/** A prepared page `factor` times larger each way, its rotation kept, for a page whose print is too small to read well. */
export async function enlargePage(image: GrayImage, factor: number): Promise<GrayImage> {
  const width = Math.round(image.width * factor);
  const height = Math.round(image.height * factor);
  // Without grayscale() sharp writes raw pixels of one channel back as three.
  const gray = await sharp(pixelsOf(image), { raw: { width: image.width, height: image.height, channels: 1 } }).resize(width, height, { fit: 'fill', kernel: 'cubic' }).grayscale().raw().toBuffer();
  return encodePgm(gray, width, height, image.rotation);
}

/** Converts RGBA pixels (a rendered PDF page) to the grayscale image OCR reads. */
export async function toPgm(rgba: Buffer, width: number, height: number): Promise<GrayImage> {
  const gray = await sharp(rgba, { raw: { width, height, channels: 4 } }).grayscale().raw().toBuffer();
  return pgm(gray, width, height);
}

function imageError(err: unknown): DocumentError {
  const message = (err as Error)?.message ?? String(err);
  if (/pixel limit/i.test(message)) {
    return new DocumentError('image_too_large', `The image has more pixels than the limit allows: ${message}`);
  }
  return new DocumentError('unreadable_document', `The image cannot be decoded: ${message}`);
}

/** The size a picture of `width` x `height` is read at: text large enough to read, without needless pixels. */
function ocrSize(width: number, height: number): { width: number; height: number; kernel: 'cubic' | 'lanczos3' } {
  const longSide = Math.max(width, height);
  let factor = 1;
  if (longSide < MIN_LONG_SIDE) factor = Math.min(MAX_UPSCALE, MIN_LONG_SIDE / longSide);
  else if (longSide > MAX_LONG_SIDE) factor = MAX_LONG_SIDE / longSide;
  return { width: Math.max(1, Math.round(width * factor)), height: Math.max(1, Math.round(height * factor)), kernel: factor > 1 ? 'cubic' : 'lanczos3' };
}

/**
 * Prepares a JPEG, PNG or WebP for OCR: upright per its EXIF orientation, grayscale, and scaled
 * so that text is large enough to read without wasting time on needless pixels. The pixel
 * count is checked from the header first, so a decompression bomb is refused before decoding.
 */
export async function prepareImage(bytes: Buffer, limits: ImageLimits): Promise<GrayImage> {
  let width: number;
  let height: number;
  let orientation: number | undefined;
  try {
    const meta = await sharp(bytes, { limitInputPixels: false, pages: 1 }).metadata();
    width = meta.width ?? 0;
    height = meta.pageHeight ?? meta.height ?? 0;
    orientation = meta.orientation;
  } catch (err) {
    throw imageError(err);
  }
  if (!width || !height) throw new DocumentError('unreadable_document', 'The image header gives no width or height.');
  if (width * height > limits.maxImagePixels) {
    throw new DocumentError(
      'image_too_large',
      `The image is ${width}x${height} pixels (${(width * height).toLocaleString('en')}); at most ${limits.maxImagePixels.toLocaleString('en')} pixels are accepted.`,
    );
  }
  const target = orientation && orientation >= 5 ? ocrSize(height, width) : ocrSize(width, height);
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: limits.maxImagePixels, pages: 1 })
      .rotate()
      .flatten({ background: '#ffffff' })
      .grayscale()
      .resize(target.width, target.height, { fit: 'fill', kernel: target.kernel })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return await pgm(data, info.width, info.height);
  } catch (err) {
    throw imageError(err);
  }
}

/** Decoded pixels: 1 (gray), 3 (RGB) or 4 (RGBA) bytes a pixel, row after row. */
export interface RawPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
}

/** A picture as sharp decodes it (a JPEG or a PNG, without alpha), of the size it was checked at. */
export interface EncodedPixels {
  encoded: Buffer;
  width: number;
  height: number;
}

export type Picture = RawPixels | EncodedPixels;

/**
 * How a picture is turned to stand as its page shows it. Mirroring comes first: `flop` reverses
 * its columns and `flip` its rows, then it is turned `rotate` degrees clockwise.
 */
export interface Placement {
  rotate: 0 | 90;
  flip: boolean;
  flop: boolean;
}

/**
 * Prepares a picture taken out of a PDF page for OCR as an uploaded image is: placed as the page
 * shows it, on white where it is transparent, grayscale, and scaled by the same rule.
 */
export async function preparePixels(pixels: Picture, placement: Placement): Promise<GrayImage> {
  const { width, height } = pixels;
  const target = placement.rotate ? ocrSize(height, width) : ocrSize(width, height);
  // An encoded picture is taken as the PDF's colour space says, not as a profile inside the codec's data would have it.
  let image =
    'encoded' in pixels
      ? sharp(pixels.encoded, { limitInputPixels: width * height, ignoreIcc: true })
      : sharp(pixels.data, { raw: { width, height, channels: pixels.channels }, limitInputPixels: false });
  if (placement.flip) image = image.flip();
  if (placement.flop) image = image.flop();
  if (placement.rotate) image = image.rotate(placement.rotate);
  if ('channels' in pixels && pixels.channels === 4) image = image.flatten({ background: '#ffffff' });
  const { data, info } = await image
    .grayscale()
    .resize(target.width, target.height, { fit: 'fill', kernel: target.kernel })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return pgm(data, info.width, info.height);
}
