import { describe, expect, it } from 'vitest';
import { wordsToLines } from '../../src/extraction/layout.js';
import { packDocument, packLines, unpackDocument, unpackLines } from '../../src/extraction/packed-lines.js';
import type { Word } from '../../src/extraction/types.js';

const word = (text: string, x: number, y: number, confidence = 100): Word => ({ text, confidence, bbox: { x, y, width: 0.01 * text.length, height: 0.012 } });

describe('packed lines', () => {
  it('come back as the lines they were, texts of any length and characters included', () => {
    const words = [word('Invoice', 0.1, 0.1), word('Nº', 0.2, 0.1, 87.5), word('2026-001', 0.25, 0.1), word('', 0.5, 0.1), word('Total: 1 234,56 €', 0.6, 0.3), word('\u0000x😀', 0.1, 0.5, 12)];
    const lines = wordsToLines(words);
    expect(lines.length).toBeGreaterThan(1);
    expect(unpackLines(packLines(lines))).toEqual(lines);
    expect(unpackLines(packLines([]))).toEqual([]);
  });

  it('carry a document page by page, with a page’s second reading', () => {
    const doc = {
      pages: [
        { number: 1, source: 'text_layer' as const, lines: wordsToLines([word('a', 0.1, 0.1)]) },
        { number: 2, source: 'ocr' as const, lines: [] },
        { number: 3, source: 'ocr' as const, lines: wordsToLines([word('TOTAL', 0.1, 0.5, 40)]), reread: wordsToLines([word('TOTAL', 0.1, 0.5, 90), word('42.40', 0.6, 0.5, 88)]) },
      ],
    };
    expect(unpackDocument(packDocument(doc))).toEqual(doc);
  });
});
