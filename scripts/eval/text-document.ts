import type { DocumentText, Line, Word } from '../../src/extraction/types.js';

/**
 * A plain-text document (such as the `.txt` inputs of the evaluation corpus) as the pipeline's
 * DocumentText: monospace, so a character is one column; text lines are rows, runs of two or
 * more spaces split a row into lines as column gaps do, form feeds split pages.
 */
export function documentFromText(text: string): DocumentText {
  const pages = text.split('\f');
  return {
    pages: pages.map((pageText, p) => {
      const rows = pageText.split(/\r?\n/);
      const columns = Math.max(1, ...rows.map((r) => r.length));
      const lines: Line[] = [];
      rows.forEach((row, r) => {
        const box = (start: number, length: number) => ({ x: start / columns, y: r / rows.length, width: length / columns, height: 0.8 / rows.length });
        for (const chunk of row.matchAll(/\S+(?: \S+)*/g)) {
          const words: Word[] = [...chunk[0].matchAll(/\S+/g)].map((w) => ({ text: w[0], confidence: 100, bbox: box(chunk.index + w.index, w[0].length) }));
          lines.push({ text: chunk[0], row: r, words, bbox: box(chunk.index, chunk[0].length), confidence: 100 });
        }
      });
      return { number: p + 1, source: 'text_layer' as const, lines };
    }),
  };
}
