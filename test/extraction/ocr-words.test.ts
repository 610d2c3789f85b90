import { describe, expect, it } from 'vitest';
import type Tesseract from 'tesseract.js';
import { splitAtSpaces, toWords, type PixelWord } from '../../src/extraction/ocr-words.js';

/** A word of fixed-pitch glyphs 20 pixels wide and 30 tall, from `x`, with `gaps[i]` extra pixels before glyph i. */
function word(text: string, x: number, gaps: Record<number, number> = {}, narrow = ''): PixelWord {
  let at = x;
  const symbols = [...text].map((ch, i) => {
    at += gaps[i] ?? 0;
    const width = narrow.includes(ch) ? 6 : 20;
    const inset = (20 - width) / 2;
    const symbol = { text: ch, bbox: { x0: at + inset, x1: at + inset + width } };
    at += 22;
    return symbol;
  });
  return { text, confidence: 90, bbox: { x0: symbols[0]!.bbox.x0, y0: 100, x1: symbols.at(-1)!.bbox.x1, y1: 130 }, symbols };
}

const texts = (line: PixelWord[]) => splitAtSpaces(line).map((w) => w.text);

describe('splitAtSpaces', () => {
  it('cuts a word where its symbols stand a space apart, judged by the spaces of its line', () => {
    // 'Total' ends at 108, so the line's space between words is 20 pixels.
    const line = [word('Total', 0), word('$42.00', 128, { 1: 16 }, '.')];
    expect(texts(line)).toEqual(['Total', '$', '42.00']);
    expect(texts([word('Total', 0), word('$42.00', 128, { 1: 8 }, '.')])).toEqual(['Total', '$42.00']);
    const [, sign, amount] = splitAtSpaces(line);
    expect(sign!.bbox.x1).toBeLessThan(amount!.bbox.x0);
    expect(amount!.confidence).toBe(90);
  });

  it('keeps a word whole when its gaps are only the blank beside narrow glyphs', () => {
    expect(texts([word('PIN', 0), word('110001', 100, {}, '1')])).toEqual(['PIN', '110001']);
    expect(texts([word('1.00kg', 0, {}, '1.')])).toEqual(['1.00kg']);
  });

  it('keeps letters set wide apart in one word, but cuts figures where a point was lost', () => {
    // Every letter of 'WESTERN' stands 16 pixels past the usual pitch, nearly a space (20) apart.
    const wide = (text: string, x: number) => word(text, x, Object.fromEntries([...text].map((_, i) => [i, i ? 16 : 0])));
    expect(texts([wide('WESTERN', 0), wide('EASTERN', 300)])).toEqual(['WESTERN', 'EASTERN']);
    expect(texts([word('Total', 0), word('GST', 128), word('120', 220, { 1: 24 })])).toEqual(['Total', 'GST', '1', '20']);
  });

  it('leaves a word alone whose symbols do not spell it', () => {
    const odd = { ...word('$ 42', 0, { 1: 40 }), text: '$42' };
    expect(texts([odd])).toEqual(['$42']);
  });
});

describe('toWords', () => {
  const image = { width: 1000, height: 1000, pgm: Buffer.alloc(0) };
  const page = (words: [string, number][]) =>
    ({ blocks: [{ paragraphs: [{ lines: [{ words: words.map(([text, confidence], i) => ({ ...word(text, i * 200), confidence })) }] }] }] }) as unknown as Tesseract.Page;

  it('keeps a word of letters tesseract doubts, and drops doubtful figures and marks', () => {
    const words = toWords(page([['Broadviaw', 0], ['Marketing', 92], ['5.030', 12], ['~', 17], ['Sdn', 94]]), image);
    expect(words.map((w) => w.text)).toEqual(['Broadviaw', 'Marketing', 'Sdn']);
    expect(words[0]).toMatchObject({ confidence: 0, bbox: { x: 0, y: 0.1 }, ocrLine: 1 });
  });
});
