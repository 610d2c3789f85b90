import sharp from 'sharp';
import { DocumentError } from '../errors.js';
import type { GrayImage } from './types.js';

export interface ImageLimits {
  maxImagePixels: number;
}

/** Below this long side, text in a photo or screenshot is too small for the LSTM model to read well. */
const MIN_LONG_SIDE = 1800;
const MAX_UPSCALE = 3;
/** Past this long side OCR only gets slower: a 300-dpi A4 page is 3508 pixels tall. */
const MAX_LONG_SIDE = 4200;

function pgm(gray: Buffer, width: number, height: number): GrayImage {
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  return { width, height, pgm: Buffer.concat([header, gray]) };
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
  const [uprightWidth, uprightHeight] = orientation && orientation >= 5 ? [height, width] : [width, height];
  const longSide = Math.max(uprightWidth, uprightHeight);
  let factor = 1;
  if (longSide < MIN_LONG_SIDE) factor = Math.min(MAX_UPSCALE, MIN_LONG_SIDE / longSide);
  else if (longSide > MAX_LONG_SIDE) factor = MAX_LONG_SIDE / longSide;
  const targetWidth = Math.max(1, Math.round(uprightWidth * factor));
  const targetHeight = Math.max(1, Math.round(uprightHeight * factor));
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: limits.maxImagePixels, pages: 1 })
      .rotate()
      .flatten({ background: '#ffffff' })
      .grayscale()
      .resize(targetWidth, targetHeight, { fit: 'fill', kernel: factor > 1 ? 'cubic' : 'lanczos3' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return pgm(data, info.width, info.height);
  } catch (err) {
    throw imageError(err);
  }
}
