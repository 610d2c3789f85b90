import { walkOperators, type Matrix } from './pdf-operators.js';
import type { PdfJs } from './pdfjs.js';
import type { Box, Word } from './types.js';

/** A picture narrower or shallower than these shares of the page holds no line of text worth reading. */
const MIN_WIDTH = 0.1;
const MIN_HEIGHT = 0.015;
/** Fewer pixels than these across and down the picture itself and it holds no word large enough to read. */
const MIN_PIXEL_WIDTH = 100;
const MIN_PIXEL_HEIGHT = 40;

/** Whether a picture of these pixels can hold a line of text OCR reads. */
export const readableSize = (width: number, height: number) => width >= MIN_PIXEL_WIDTH && height >= MIN_PIXEL_HEIGHT;
/** A letterhead or a footer is a band of the page: a picture over this share of it is a photo, a drawing or a background. */
const MAX_AREA = 0.25;
/** Gray levels between these are neither ink nor paper. */
const MID_TONES = [48, 208] as const;
/** A picture with more of its pixels in mid-tones than this is a photo: OCR reads it slowly and as junk. */
const MAX_MID_TONES = 0.3;

/** Whether a picture rendered for OCR (8-bit gray pixels) is a photo rather than print: mostly mid-tones, not ink on paper. */
export function isPhoto(gray: Uint8Array): boolean {
  let mid = 0;
  for (let i = 0; i < gray.length; i += 1) if (gray[i]! > MID_TONES[0] && gray[i]! < MID_TONES[1]) mid += 1;
  return mid > MAX_MID_TONES * gray.length;
}

/** A picture with this many text-layer words on it is under text the layer already has. */
const MAX_WORDS_ON = 3;
/** At most this many pictures a page are read, the largest first: each costs an OCR job. */
const MAX_PICTURES = 4;

const centreIn = (w: Word, b: Box) => {
  const x = w.bbox.x + w.bbox.width / 2;
  const y = w.bbox.y + w.bbox.height / 2;
  return x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height;
};

/**
 * Where a text-layer page paints pictures that may hold text of their own: a letterhead or a
 * footer with the company's name, address and bank details set as an image, which the text layer
 * does not have. Boxes are fractions of the page (`pageTransform` takes PDF space to the page's
 * viewport of `width` x `height`); pictures too small to hold a readable line, large ones and
 * pictures the text layer's words lie on are left out.
 */
export function textPictures(
  { OPS, Util }: Pick<PdfJs, 'OPS' | 'Util'>,
  fnArray: number[],
  argsArray: unknown[][],
  pageTransform: number[],
  width: number,
  height: number,
  words: Word[],
): Box[] {
  const found: Box[] = [];
  walkOperators({ OPS, Util }, fnArray, argsArray, (fn, args, ctm) => {
    const pixels = fn === OPS.paintImageXObject ? { width: args[1] as number, height: args[2] as number } : fn === OPS.paintInlineImageXObject ? (args[0] as { width?: number; height?: number } | undefined) : null;
    if (!pixels) return true;
    const [a, b, c, d, e, f] = Util.transform(pageTransform, ctm) as Matrix;
    const xs = [e, a + e, c + e, a + c + e].map((x) => Math.min(1, Math.max(0, x / width)));
    const ys = [f, b + f, d + f, b + d + f].map((y) => Math.min(1, Math.max(0, y / height)));
    const box = { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
    const readable = box.width >= MIN_WIDTH && box.height >= MIN_HEIGHT && box.width * box.height <= MAX_AREA && readableSize(pixels.width ?? 0, pixels.height ?? 0);
    if (readable && words.filter((w) => centreIn(w, box)).length < MAX_WORDS_ON) found.push(box);
    return true;
  });
  return found.sort((p, q) => q.width * q.height - p.width * p.height).slice(0, MAX_PICTURES);
}

/** A picture's words read less surely than this are left out: a photo or a logo reads as junk, and the page has its own text. */
const MIN_WORD_CONFIDENCE = 50;

/**
 * OCR's words of a picture (boxed as fractions of the picture) placed on the page, without those
 * read doubtfully and those the page's text layer has where they stand.
 */
export function placeWords(read: Word[], picture: Box, textLayer: Word[]): Word[] {
  const placed = read.map((w) => ({
    text: w.text,
    confidence: w.confidence,
    bbox: { x: picture.x + w.bbox.x * picture.width, y: picture.y + w.bbox.y * picture.height, width: w.bbox.width * picture.width, height: w.bbox.height * picture.height },
  }));
  return placed.filter((w) => w.confidence >= MIN_WORD_CONFIDENCE && !textLayer.some((t) => centreIn(t, w.bbox) || centreIn(w, t.bbox)));
}
