import { beforeAll, describe, expect, it } from 'vitest';
import { isPhoto, placeWords, textPictures } from '../../src/extraction/pdf-pictures.js';
import { loadPdfJs, type PdfJs } from '../../src/extraction/pdfjs.js';
import type { Word } from '../../src/extraction/types.js';

/** An A4 page as pdf.js's viewport at scale 1 sees it: PDF space flipped to y down. */
const A4 = { width: 595, height: 842, transform: [1, 0, 0, -1, 0, 842] };

let pdfjs: PdfJs;
beforeAll(async () => {
  pdfjs = await loadPdfJs();
});

/** The operators of a page painting each image (pixels wide x high) into a box of points (x, y from the bottom, width, height). */
function painting(...images: { pixels: [number, number]; at: [number, number, number, number] }[]) {
  const { OPS } = pdfjs;
  const fnArray: number[] = [];
  const argsArray: unknown[][] = [];
  images.forEach(({ pixels, at: [x, y, width, height] }, i) => {
    fnArray.push(OPS.save, OPS.transform, OPS.paintImageXObject, OPS.restore);
    argsArray.push([], [width, 0, 0, height, x, y], [`img_${i}`, ...pixels], []);
  });
  return { fnArray, argsArray };
}

const word = (text: string, x: number, y: number, width = 0.1, height = 0.012): Word => ({ text, confidence: 90, bbox: { x, y, width, height } });

describe('textPictures', () => {
  it('places a footer picture on the page as fractions of it', () => {
    const { fnArray, argsArray } = painting({ pixels: [1375, 111], at: [50, 52, 495, 40] });
    const [box, ...rest] = textPictures(pdfjs, fnArray, argsArray, A4.transform, A4.width, A4.height, []);
    expect(rest).toEqual([]);
    expect(box!.x).toBeCloseTo(50 / 595, 4);
    expect(box!.y).toBeCloseTo((842 - 92) / 842, 4);
    expect(box!.width).toBeCloseTo(495 / 595, 4);
    expect(box!.height).toBeCloseTo(40 / 842, 4);
  });

  it('passes over icons, pictures of too few pixels, backgrounds and pictures under the text layer', () => {
    const icon = { pixels: [400, 400] as [number, number], at: [50, 700, 20, 20] as [number, number, number, number] };
    const coarse = { pixels: [300, 30] as [number, number], at: [50, 52, 495, 40] as [number, number, number, number] };
    const background = { pixels: [2480, 3508] as [number, number], at: [0, 0, 595, 842] as [number, number, number, number] };
    const underText = { pixels: [1375, 111] as [number, number], at: [50, 52, 495, 40] as [number, number, number, number] };
    const { fnArray, argsArray } = painting(icon, coarse, background, underText);
    const onIt = [word('Lieferant', 0.1, 0.9), word('GmbH', 0.3, 0.9), word('IBAN', 0.5, 0.9)];
    expect(textPictures(pdfjs, fnArray, argsArray, A4.transform, A4.width, A4.height, onIt)).toEqual([]);
  });
});

describe('placeWords', () => {
  it('puts the picture’s words on the page and drops those the text layer has where they stand, and those read doubtfully', () => {
    const picture = { x: 0.1, y: 0.8, width: 0.8, height: 0.1 };
    const read = [word('IBAN', 0, 0, 0.2, 0.5), word('Total', 0.5, 0.5, 0.2, 0.5), { ...word('aeaniiiaiil', 0.3, 0, 0.2, 0.5), confidence: 0 }];
    const textLayer = [word('Total', 0.5, 0.86, 0.15, 0.04)];
    const placed = placeWords(read, picture, textLayer);
    expect(placed).toHaveLength(1);
    expect(placed[0]!.text).toBe('IBAN');
    expect(placed[0]!.bbox.x).toBeCloseTo(0.1, 6);
    expect(placed[0]!.bbox.y).toBeCloseTo(0.8, 6);
    expect(placed[0]!.bbox.width).toBeCloseTo(0.16, 6);
    expect(placed[0]!.bbox.height).toBeCloseTo(0.05, 6);
    expect(placed[0]!.ocrLine).toBeUndefined();
  });
});

describe('isPhoto', () => {
  it('tells a photo, mostly mid-tones, from print, ink on paper with grey only at the letters’ edges', () => {
    const print = new Uint8Array(10_000).fill(255);
    for (let i = 0; i < print.length; i += 7) print[i] = i % 3 ? 0 : 128;
    const photo = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 37) % 256);
    expect(isPhoto(print)).toBe(false);
    expect(isPhoto(photo)).toBe(true);
  });
});
