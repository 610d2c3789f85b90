import type { DocumentText, Line, PageText, Word } from './types.js';

/**
 * Lines moved between threads as one array of numbers and one string, instead of as objects:
 * a worker thread writes them and the main thread rebuilds them without any serializing or
 * parsing, and the numbers' buffer is moved rather than copied. For a 20-page invoice (10,000
 * words) the main thread's share fell from 17 ms (structured clone) or 8 ms (JSON) to about 2.
 */
export interface PackedLines {
  numbers: Float64Array;
  text: string;
}

/** Numbers per line before its words: row, box (4), confidence, text length, word count. */
const LINE_NUMBERS = 8;
/** Numbers per word: confidence, box (4), text length. */
const WORD_NUMBERS = 6;

export function packLines(lines: Line[]): PackedLines {
  let size = 1;
  for (const line of lines) size += LINE_NUMBERS + WORD_NUMBERS * line.words.length;
  const numbers = new Float64Array(size);
  const texts: string[] = [];
  let at = 0;
  numbers[at++] = lines.length;
  const box = (b: Line['bbox']) => {
    numbers[at++] = b.x;
    numbers[at++] = b.y;
    numbers[at++] = b.width;
    numbers[at++] = b.height;
  };
  for (const line of lines) {
    numbers[at++] = line.row;
    box(line.bbox);
    numbers[at++] = line.confidence;
    numbers[at++] = line.text.length;
    numbers[at++] = line.words.length;
    texts.push(line.text);
    for (const word of line.words) {
      numbers[at++] = word.confidence;
      box(word.bbox);
      numbers[at++] = word.text.length;
      texts.push(word.text);
    }
  }
  return { numbers, text: texts.join('') };
}

export function unpackLines({ numbers, text }: PackedLines): Line[] {
  let at = 0;
  let offset = 0;
  const take = (length: number) => text.slice(offset, (offset += length));
  const lines: Line[] = [];
  const count = numbers[at++]!;
  for (let i = 0; i < count; i += 1) {
    const row = numbers[at]!;
    const bbox = { x: numbers[at + 1]!, y: numbers[at + 2]!, width: numbers[at + 3]!, height: numbers[at + 4]! };
    const confidence = numbers[at + 5]!;
    const lineText = take(numbers[at + 6]!);
    const wordCount = numbers[at + 7]!;
    at += LINE_NUMBERS;
    const words: Word[] = [];
    for (let w = 0; w < wordCount; w += 1) {
      // Properties in the order the pipeline creates them, so that code reading words sees one shape.
      const wordText = take(numbers[at + 5]!);
      words.push({ text: wordText, confidence: numbers[at]!, bbox: { x: numbers[at + 1]!, y: numbers[at + 2]!, width: numbers[at + 3]!, height: numbers[at + 4]! } });
      at += WORD_NUMBERS;
    }
    lines.push({ text: lineText, row, words, bbox, confidence });
  }
  return lines;
}

/** A document's pages with their lines (and a second reading's) packed. */
export type PackedDocument = { number: number; source: PageText['source']; lines: PackedLines; reread?: PackedLines }[];

export const packDocument = (doc: DocumentText): PackedDocument =>
  doc.pages.map((p) => ({ number: p.number, source: p.source, lines: packLines(p.lines), ...(p.reread ? { reread: packLines(p.reread) } : {}) }));

export const unpackDocument = (packed: PackedDocument): DocumentText => ({
  pages: packed.map((p) => ({ number: p.number, source: p.source, lines: unpackLines(p.lines), ...(p.reread ? { reread: unpackLines(p.reread) } : {}) })),
});
