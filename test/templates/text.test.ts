import { describe, expect, it } from 'vitest';
import type { Line, Word } from '../../src/extraction/types.js';
import { templateText } from '../../src/templates/text.js';

const word = (text: string, x: number, y: number, height = 0.012): Word => ({ text, confidence: 100, bbox: { x, y, width: text.length * 0.006, height } });
const line = (row: number, words: Word[]): Line => ({
  text: words.map((w) => w.text).join(' '),
  row,
  words,
  bbox: { x: words[0]!.bbox.x, y: Math.min(...words.map((w) => w.bbox.y)), width: 0.3, height: 0.04 },
  confidence: 100,
});

describe('templateText', () => {
  it('prints two text lines joined into one row beside a taller word as two rows, as pdftotext -layout does', () => {
    // The pipeline's row holds "Sammy Maystone" over an e-mail address, both beside a large "INVOICE".
    const name = line(0, [word('Sammy', 0.08, 0.033), word('smaystone4@fake.com', 0.08, 0.0485), word('Maystone', 0.13, 0.033)]);
    const title = line(0, [word('INVOICE', 0.75, 0.0328, 0.036)]);
    const { text } = templateText({ pages: [{ number: 1, source: 'text_layer', lines: [name, title] }] });
    const rows = text.split('\n').map((r) => r.trim().replace(/ {2,}/g, ' | '));
    expect(rows).toEqual(['Sammy Maystone', 'smaystone4@fake.com | INVOICE']);
  });

  it('starts a block a fraction of a character right of the leftmost text at column 0, as pdftotext does', () => {
    const lines = [line(0, [word('Azure', 0.1, 0.1)]), line(1, [word('Acme', 0.1 + 0.53 * 0.006, 0.2)]), line(2, [word('Detail', 0.1 + 0.99 * 0.006, 0.3)])];
    const { text } = templateText({ pages: [{ number: 1, source: 'text_layer', lines }] });
    expect(text.split('\n')).toEqual(['Azure', 'Acme', ' Detail']);
  });

  it('keeps words of one text line on one row whatever their heights', () => {
    const { text } = templateText({ pages: [{ number: 1, source: 'text_layer', lines: [line(0, [word('Total', 0.1, 0.5), word('EUR', 0.15, 0.498, 0.016), word('12.00', 0.2, 0.501)])] }] });
    expect(text.trim()).toBe('Total EUR 12.00');
  });
});
