import type Tesseract from 'tesseract.js';
import { median } from './median.js';
import type { GrayImage, Word } from './types.js';

/**
 * Figures and marks under this confidence are mostly specks, rules and logo fragments. Words of
 * two letters or more are kept whatever their confidence: tesseract gives 0 to a word one of
 * whose letters it doubts ("Broadviaw" for "Broadview"), and the word is still the best reading
 * of a name or an address (sroie-dev word recall 80.3% -> 81.9%). A doubtful figure is dropped,
 * as an amount misread does more harm than one missed.
 */
const MIN_WORD_CONFIDENCE = 20;
const WORDLIKE = /\p{L}.*\p{L}/u;

/** A word as tesseract boxes it, in pixels, with its symbols' horizontal extents. */
export interface PixelWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
  symbols: { text: string; bbox: { x0: number; x1: number } }[];
}

const LETTER = /^\p{L}$/u;

/** Without spaces to go by on a line, a space is taken to be this many text heights wide. */
const SPACE_HEIGHTS = 0.35;
/** A gap inside a word this much of the line's typical space wide is a space. */
const SPACE_SHARE = 0.8;

/**
 * Cuts tesseract's words where their symbols stand a space apart. Tesseract joins a currency
 * sign, a unit or a percent sign set one narrow space from a number ("$ 42.00" reads as
 * "$42.00", "1.00 kg" as "1.00kg"), where a PDF's text, and so pdftotext's, keeps the space that
 * template patterns such as `€\s+\d` expect. A space is judged against the spaces tesseract did
 * find on the same line; a narrow glyph ("1", ".") is granted the blank its fixed-width cell
 * leaves beside it, so "110001" stays whole.
 */
export function splitAtSpaces(line: PixelWord[]): PixelWord[] {
  const height = median(line.map((w) => w.bbox.y1 - w.bbox.y0)) ?? 0;
  const spaces = line.slice(1).map((w, i) => w.bbox.x0 - line[i]!.bbox.x1).filter((gap) => gap > 0 && gap < height);
  const space = Math.max(1, SPACE_SHARE * (median(spaces) ?? SPACE_HEIGHTS * height));
  const glyphWidth = median(line.flatMap((w) => w.symbols.map((s) => s.bbox.x1 - s.bbox.x0))) ?? 0;
  const blank = (s: PixelWord['symbols'][number]) => Math.max(0, (glyphWidth - (s.bbox.x1 - s.bbox.x0)) / 2);
  return line.flatMap((word) => {
    const { symbols } = word;
    if (symbols.length < 2 || symbols.map((s) => s.text).join('') !== word.text) return [word];
    const gaps = symbols.slice(1).map((s, i) => s.bbox.x0 - symbols[i]!.bbox.x1 - blank(s) - blank(symbols[i]!));
    const betweenLetters = symbols.slice(1).map((s, i) => LETTER.test(s.text) && LETTER.test(symbols[i]!.text));
    // Letters set wide apart ("W E S T E R N" on a till's header) stand as far apart as a narrow
    // space: between two letters a space is a gap well past the word's own letter spacing too.
    // Figures keep the old rule: the gap in "1 20" is the decimal point OCR lost.
    const tracking = 2 * Math.max(0, median(gaps.filter((_, i) => betweenLetters[i])) ?? 0);
    const pieces: PixelWord['symbols'][] = [[symbols[0]!]];
    for (let i = 1; i < symbols.length; i += 1) {
      if (gaps[i - 1]! >= space && (!betweenLetters[i - 1] || gaps[i - 1]! >= tracking)) pieces.push([]);
      pieces.at(-1)!.push(symbols[i]!);
    }
    if (pieces.length === 1) return [word];
    return pieces.map((piece) => ({
      text: piece.map((s) => s.text).join(''),
      confidence: word.confidence,
      bbox: { ...word.bbox, x0: piece[0]!.bbox.x0, x1: piece.at(-1)!.bbox.x1 },
      symbols: piece,
    }));
  });
}

/** The words of a page tesseract read, boxed as fractions of the image, without the specks it read as words. */
export function toWords(page: Tesseract.Page, image: GrayImage): Word[] {
  const words: Word[] = [];
  let ocrLine = 0;
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        ocrLine += 1;
        for (const w of splitAtSpaces(line.words)) {
          const text = w.text.trim();
          if (!text || (w.confidence < MIN_WORD_CONFIDENCE && !WORDLIKE.test(text))) continue;
          words.push({
            text,
            confidence: w.confidence,
            bbox: {
              x: w.bbox.x0 / image.width,
              y: w.bbox.y0 / image.height,
              width: (w.bbox.x1 - w.bbox.x0) / image.width,
              height: (w.bbox.y1 - w.bbox.y0) / image.height,
            },
            ocrLine,
          });
        }
      }
    }
  }
  return words;
}
