import type { DocumentText, Line, PageText, Word } from '../extraction/types.js';

export interface LabelHit {
  page: number;
  words: Word[];
}

const norm = (s: string) => s.toLowerCase().replace(/[:：]+$/, '');

/** Index just past the label's words in the line, or -1; the label's last word may carry a colon or run on ("No.:"). */
function labelEnd(line: Line, tokens: string[]): number {
  const words = line.words.map((w) => norm(w.text));
  for (let i = 0; i + tokens.length <= words.length; i += 1) {
    const ok = tokens.every((t, k) => (k === tokens.length - 1 ? words[i + k]!.startsWith(t) : words[i + k] === t));
    if (ok) return i + tokens.length;
  }
  return -1;
}

function rightOf(page: PageText, line: Line, end: number): Word[] {
  const rest = line.words.slice(end).filter((w) => !/^[:：]$/.test(w.text));
  if (rest.length) return rest;
  const edge = line.words[end - 1]!.bbox.x;
  const next = page.lines.filter((l) => l.row === line.row && l.bbox.x > edge).sort((a, b) => a.bbox.x - b.bbox.x)[0];
  return next?.words ?? [];
}

function below(page: PageText, line: Line, end: number): Word[] {
  const labelWords = line.words.slice(0, end);
  const x0 = Math.min(...labelWords.map((w) => w.bbox.x));
  const x1 = Math.max(...labelWords.map((w) => w.bbox.x + w.bbox.width));
  const next = page.lines
    .filter((l) => l.row > line.row && l.bbox.x < x1 && l.bbox.x + l.bbox.width > x0)
    .sort((a, b) => a.row - b.row || a.bbox.x - b.bbox.x)[0];
  return next?.words ?? [];
}

/** The value next to the first occurrence of a label in reading order: the words after it on its row, or the line under it. */
export function findByLabel(doc: DocumentText, label: string, direction: 'right' | 'below'): LabelHit | null {
  const tokens = label.trim().split(/\s+/).map(norm);
  for (const page of doc.pages) {
    for (const line of [...page.lines].sort((a, b) => a.row - b.row || a.bbox.x - b.bbox.x)) {
      const end = labelEnd(line, tokens);
      if (end < 0) continue;
      const words = direction === 'below' ? below(page, line, end) : rightOf(page, line, end);
      if (words.length) return { page: page.number, words };
    }
  }
  return null;
}
