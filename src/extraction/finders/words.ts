import { union } from '../layout.js';
import type { Box, Line, Word } from '../types.js';

/** The words of `line` that hold the characters from `start` to `end` of its text. */
export function wordsAt(line: Pick<Line, 'words'>, start: number, end: number): Word[] {
  const words: Word[] = [];
  let offset = 0;
  for (const word of line.words) {
    const wordEnd = offset + word.text.length;
    if (wordEnd > start && offset < end) words.push(word);
    offset = wordEnd + 1;
  }
  return words.length ? words : line.words;
}

export function meanConfidence(words: Word[]): number {
  return words.reduce((sum, w) => sum + w.confidence, 0) / (words.length || 1);
}

/** Box and text confidence of the characters `start` to `end` of a line. */
export function spanOf(line: Pick<Line, 'words'>, start: number, end: number): { bbox: Box; textConfidence: number } {
  const words = wordsAt(line, start, end);
  return { bbox: union(words.map((w) => w.bbox)), textConfidence: meanConfidence(words) };
}
