import { bufferOver } from './buffer-over.js';
import { preparePixels, type Placement, type RawPixels } from './image.js';
import { streamPicture } from './pdf-image-stream.js';
import { walkOperators, type Matrix } from './pdf-operators.js';
import type { Objects } from './pdf-objects.js';
import { pageOperators } from './pdf-page-content.js';
import { PdfRef } from './pdf-syntax.js';
import type { PdfJs, PdfJsPage } from './pdfjs.js';
import type { GrayImage } from './types.js';

/** pdf.js's decoded image, as its renderer receives it. */
interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data?: Uint8Array | Uint8ClampedArray | null;
}

/** An image's edges may lie this share of the page's side away from the page's and still cover it (a scanner's rounding, a trimmed margin). */
const EDGE_TOLERANCE = 0.01;
/** A matrix term this small beside the others is taken as zero: the picture is not tilted. */
const SKEW_TOLERANCE = 1e-3;
/** Graphics state entries that change nothing about how an opaque picture is painted. */
const PAINT_NEUTRAL_STATE = new Set(['LW', 'LC', 'LJ', 'ML', 'D', 'RI', 'FL', 'Font']);

function neutralState(entries: [string, unknown][]): boolean {
  return entries.every(([key, value]) => {
    if (PAINT_NEUTRAL_STATE.has(key)) return true;
    if (key === 'SMask') return value === false;
    if (key === 'CA' || key === 'ca') return value === 1;
    if (key === 'BM') return value === 'source-over';
    return false;
  });
}

/** The one picture the page paints and where (its matrix from the unit square to the page), or null when the page draws anything else. */
function onlyPicture(pdfjs: PdfJs, fnArray: number[], argsArray: unknown[][]): { objId: string; width: number; height: number; matrix: Matrix } | null {
  const { OPS } = pdfjs;
  let picture: { objId: string; width: number; height: number; matrix: Matrix } | null = null;
  const alone = walkOperators(pdfjs, fnArray, argsArray, (fn, args, ctm) => {
    switch (fn) {
      case OPS.paintImageXObject:
        if (picture) return false;
        picture = { objId: args[0] as string, width: args[1] as number, height: args[2] as number, matrix: ctm };
        return true;
      case OPS.setGState:
        return neutralState(args[0] as [string, unknown][]);
      case OPS.beginMarkedContentProps:
        // Optional content may hide what it marks.
        return args[0] !== 'OC';
      case OPS.dependency:
      case OPS.beginMarkedContent:
      case OPS.endMarkedContent:
        return true;
      default:
        return false;
    }
  });
  return alone ? picture : null;
}

/**
 * How the picture stands on the page when its matrix (unit square to page, y down) sets it upright,
 * mirrored or a quarter turn round, covering the page; null when it is tilted or covers only part.
 * An image's columns run along the matrix's first column, its rows (top row first) against its second.
 */
function placement([a, b, c, d, e, f]: Matrix, pageWidth: number, pageHeight: number): Placement | null {
  const xs = [e, a + e, c + e, a + c + e];
  const ys = [f, b + f, d + f, b + d + f];
  const near = (value: number, edge: number, side: number) => Math.abs(value - edge) <= EDGE_TOLERANCE * side;
  const covers =
    near(Math.min(...xs), 0, pageWidth) && near(Math.max(...xs), pageWidth, pageWidth) && near(Math.min(...ys), 0, pageHeight) && near(Math.max(...ys), pageHeight, pageHeight);
  if (!covers) return null;
  if (Math.abs(b) <= SKEW_TOLERANCE * Math.abs(a) && Math.abs(c) <= SKEW_TOLERANCE * Math.abs(d)) {
    return { rotate: 0, flop: a < 0, flip: d > 0 };
  }
  if (Math.abs(a) <= SKEW_TOLERANCE * Math.abs(b) && Math.abs(d) <= SKEW_TOLERANCE * Math.abs(c)) {
    // A quarter turn clockwise sends columns down the page and rows to the left; mirroring first sets the other three.
    return { rotate: 90, flop: b < 0, flip: c < 0 };
  }
  return null;
}

function pixels(image: DecodedImage, { ImageKind }: PdfJs): RawPixels | null {
  const { width, height, kind, data } = image;
  if (!data) return null;
  const bytes = bufferOver(data);
  if (kind === ImageKind.RGB_24BPP && bytes.length === width * height * 3) return { data: bytes, width, height, channels: 3 };
  if (kind === ImageKind.RGBA_32BPP && bytes.length === width * height * 4) return { data: bytes, width, height, channels: 4 };
  if (kind !== ImageKind.GRAYSCALE_1BPP) return null;
  // One bit a pixel, rows padded to whole bytes; pdf.js has applied the image's Decode array, so a set bit is white.
  const rowBytes = (width + 7) >> 3;
  if (bytes.length < rowBytes * height) return null;
  const gray = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * rowBytes;
    for (let x = 0; x < width; x += 1) if ((bytes[row + (x >> 3)]! >> (7 - (x & 7))) & 1) gray[y * width + x] = 255;
  }
  return { data: gray, width, height, channels: 1 };
}

/**
 * The lone picture read from the file's own bytes: the page's content and the image's data,
 * decoded by sharp in C (see ./pdf-image-stream.ts); null when the page, its picture or its
 * encoding is anything else, for pdf.js to judge.
 */
async function filePicture(pdfjs: PdfJs, page: PdfJsPage, objects: Objects, maxImagePixels: number, stand: (m: Matrix) => Placement | null): Promise<GrayImage | null> {
  if (!page.ref) return null;
  const operators = pageOperators(objects, new PdfRef(page.ref.num, page.ref.gen), pdfjs);
  const picture = operators && onlyPicture(pdfjs, operators.fnArray, operators.argsArray);
  const place = picture && stand(picture.matrix);
  if (!place) return null;
  const pixels = await streamPicture(objects, operators.images.get(picture.objId)!, maxImagePixels);
  if (!pixels) return null;
  try {
    return await preparePixels(pixels, place);
  } catch {
    // Damaged data sharp will not decode: pdf.js reads what it can of it, as it would render it.
    return null;
  }
}

/**
 * A scanned page's picture as it is, at its own resolution, when the page paints nothing but one
 * image covering it (upright, mirrored or turned a quarter); null for anything else, which is
 * rendered instead. Re-rendering such a page cost more than reading it: the picture was drawn
 * onto a canvas at 300 dpi, read back as RGBA and converted to gray, where OCR needs only the
 * picture itself. The picture is read from the file's bytes (`objects`, null for an encrypted
 * file) when its encoding allows, else as pdf.js decodes it under the document's pixel limit.
 */
export async function pagePicture(pdfjs: PdfJs, page: PdfJsPage, objects: Objects | null, maxImagePixels: number): Promise<GrayImage | null> {
  const viewport = page.getViewport({ scale: 1 });
  const stand = (matrix: Matrix) => placement(pdfjs.Util.transform(viewport.transform, matrix) as Matrix, viewport.width, viewport.height);
  const fromFile = objects && (await filePicture(pdfjs, page, objects, maxImagePixels, stand));
  if (fromFile) return fromFile;
  const { fnArray, argsArray } = await page.getOperatorList();
  const picture = onlyPicture(pdfjs, fnArray, argsArray as unknown[][]);
  const place = picture && stand(picture.matrix);
  if (!place) return null;
  // Images used on several pages are kept document-wide; pdf.js's renderer tells them apart by this prefix.
  const objs = picture.objId.startsWith('g_') ? page.commonObjs : page.objs;
  const decoded = await new Promise<DecodedImage | null>((resolve) => objs.get(picture.objId, resolve));
  if (!decoded || decoded.width !== picture.width || decoded.height !== picture.height) return null;
  const raw = pixels(decoded, pdfjs);
  return raw && preparePixels(raw, place);
}
