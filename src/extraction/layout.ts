import { parseDate } from './normalise.js';
import type { Box, LabelValue, Line, PageText, Word } from './types.js';

/** Tells whether a phrase is a label the caller knows, such as "Invoice No" or "Total". */
export type LabelTest = (phrase: string) => boolean;

/** Height over width of an A4 page. */
const A4 = Math.SQRT2;
/** A horizontal gap wider than this many text heights separates columns rather than words. */
const COLUMN_GAP = 1.2;
/**
 * Pieces of one word that touch: PDFs that place glyphs one by one give pdf.js runs such as
 * "Ver" + "käufer", which must read as "Verkäufer", not two words.
 */
const TOUCHING = 0.05;
/** A value below its label starts within this many label heights under it. */
const BELOW_REACH = 2.2;
/** Labels are short; a longer run before a colon is a sentence. */
const MAX_LABEL_WORDS = 6;

export function union(boxes: Box[]): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x);
    y0 = Math.min(y0, b.y);
    x1 = Math.max(x1, b.x + b.width);
    y1 = Math.max(y1, b.y + b.height);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** `union([a, b])` without an array to iterate: wordsToLines grows a row's box by each of its words (a 20-page PDF's lines: 3.2 -> 2.0 ms). */
function grow(a: Box, b: Box): Box {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

function meanConfidence(words: Word[]): number {
  return words.length ? words.reduce((sum, w) => sum + w.confidence, 0) / words.length : 0;
}

function makeLine(words: Word[], row: number): Line {
  return { text: words.map((w) => w.text).join(' '), row, words, bbox: union(words.map((w) => w.bbox)), confidence: meanConfidence(words) };
}

/** Whether two boxes sit on one text row: they overlap by more than half the lower one's height. */
export function sameRow(a: Box, b: Box): boolean {
  return Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 0.5 * Math.min(a.height, b.height);
}

/** Whether two boxes stand one above the other: they share more than a fifth of the narrower one's width. */
function stacked(a: Box, b: Box): boolean {
  return Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0.2 * Math.min(a.width, b.width);
}

interface Row {
  box: Box;
  words: Word[];
  /** OCR lines on the row, each boxed. */
  parts: Box[];
}

/**
 * OCR words as rows: each line tesseract read stays whole, and joins a row only beside the
 * row's lines, never above or under one of them, at the height of the row's line nearest to it,
 * so a tilted line is not mixed into the one under it word by word.
 */
function ocrRows(words: Word[]): Row[] {
  const parts = new Map<number, Word[]>();
  for (const word of words) {
    const part = parts.get(word.ocrLine!);
    if (part) part.push(word);
    else parts.set(word.ocrLine!, [word]);
  }
  const units = [...parts.values()].map((w) => ({ box: union(w.map((x) => x.bbox)), words: w })).sort((a, b) => a.box.y + a.box.height / 2 - (b.box.y + b.box.height / 2));
  const rows: Row[] = [];
  const centre = (b: Box) => b.x + b.width / 2;
  for (const unit of units) {
    const fits = (r: Row) => {
      if (r.parts.some((p) => stacked(p, unit.box))) return false;
      const nearest = r.parts.reduce((a, b) => (Math.abs(centre(a) - centre(unit.box)) <= Math.abs(centre(b) - centre(unit.box)) ? a : b));
      return sameRow(nearest, unit.box);
    };
    let row: Row | undefined;
    for (let i = rows.length - 1; i >= 0 && !row; i -= 1) if (fits(rows[i]!)) row = rows[i];
    if (row) {
      row.words.push(...unit.words);
      row.parts.push(unit.box);
      row.box = grow(row.box, unit.box);
    } else rows.push({ box: unit.box, words: [...unit.words], parts: [unit.box] });
  }
  return rows;
}

/** Words of a text layer as rows by vertical overlap with each row's box so far. */
function textRows(words: Word[]): Row[] {
  const sorted = [...words].sort((a, b) => a.bbox.y + a.bbox.height / 2 - (b.bbox.y + b.bbox.height / 2));
  const rows: Row[] = [];
  for (const word of sorted) {
    let row: Row | undefined;
    for (let i = rows.length - 1; i >= 0 && !row; i -= 1) {
      const r = rows[i]!;
      if (sameRow(r.box, word.bbox)) row = r;
    }
    if (row) {
      row.words.push(word);
      row.box = grow(row.box, word.bbox);
    } else {
      rows.push({ box: { ...word.bbox }, words: [word], parts: [] });
    }
  }
  return rows;
}

/**
 * Groups words into rows (see `ocrRows` and `textRows`), orders each row left to right and cuts
 * it into lines at column gaps. Works the same for PDF text items and OCR words. Boxes are
 * fractions of the page's width and height, so a gap as wide as the text is high is a larger
 * fraction of a narrow till roll than of an A4 sheet: `aspect` (the page's height over its
 * width) scales the column gap to the page, taking A4 as the measure the gap was set on.
 */
export function wordsToLines(words: Word[], aspect = A4): Line[] {
  const scale = aspect / A4;
  const rows = words.length && words.every((w) => w.ocrLine !== undefined) ? ocrRows(words) : textRows(words);
  rows.sort((a, b) => a.box.y - b.box.y);
  const lines: Line[] = [];
  rows.forEach((row, index) => {
    const inRow = row.words.sort((a, b) => a.bbox.x - b.bbox.x);
    const heights = inRow.map((w) => w.bbox.height).sort((a, b) => a - b);
    const textHeight = heights[Math.floor(heights.length / 2)]!;
    let current: Word[] = [];
    for (const word of inRow) {
      const last = current.at(-1);
      const gap = last ? word.bbox.x - (last.bbox.x + last.bbox.width) : 0;
      if (last && Math.abs(gap) < TOUCHING * textHeight * scale && /\p{L}$/u.test(last.text) && /^\p{Ll}/u.test(word.text)) {
        current[current.length - 1] = { text: last.text + word.text, confidence: Math.min(last.confidence, word.confidence), bbox: grow(last.bbox, word.bbox) };
        continue;
      }
      if (last && gap > COLUMN_GAP * textHeight * scale) {
        lines.push(makeLine(current, index));
        current = [];
      }
      current.push(word);
    }
    if (current.length) lines.push(makeLine(current, index));
  });
  return lines;
}

/** The phrase without the colon it ends with; layout asks this of every line prefix, so no regex. */
function stripLabel(text: string): string {
  const trimmed = text.trim();
  return trimmed.endsWith(':') || trimmed.endsWith('：') ? trimmed.slice(0, -1).trim() : trimmed;
}

/** A word that ends a label: "No.:", "Total:", but not a time (12:30) or a URL scheme. */
function endsLabel(word: Word): boolean {
  return /[:：]$/.test(word.text) && !/^\d+[:：]$/.test(word.text);
}

function isLabelLine(line: Line, isLabel: LabelTest): boolean {
  const last = line.words.at(-1)!;
  return (line.words.length <= MAX_LABEL_WORDS && endsLabel(last)) || isLabel(stripLabel(line.text));
}

interface Chunk {
  label: Word[];
  value: Word[];
}

/**
 * Cuts "Invoice No: 42 Date: 15.03.2026" into label/value chunks. A later label starts at the
 * earliest word from which a known label phrase runs to its colon, else at the colon word.
 */
function colonChunks(words: Word[], isLabel: LabelTest): Chunk[] {
  const chunks: Chunk[] = [];
  let labelStart = 0;
  let i = 0;
  while (i < words.length) {
    if (!endsLabel(words[i]!) || i - labelStart >= MAX_LABEL_WORDS) {
      i += 1;
      continue;
    }
    const label = words.slice(labelStart, i + 1);
    let next = i + 1;
    while (next < words.length && !endsLabel(words[next]!)) next += 1;
    let valueEnd = next;
    for (let j = i + 1; j < next && next < words.length; j += 1) {
      if (isLabel(stripLabel(words.slice(j, next + 1).map((w) => w.text).join(' ')))) {
        valueEnd = j;
        break;
      }
    }
    chunks.push({ label, value: words.slice(i + 1, valueEnd) });
    labelStart = valueEnd;
    i = valueEnd;
  }
  return chunks;
}

/**
 * Words that go on naming what a label names ("Merchant Number", "Store ID"): a phrase followed by
 * one is a longer label the lexicon does not know, not a label and its value.
 */
const LABEL_CONTINUES = /^(?:number|no|nr|id)\.?$/i;

/** "Total 1,234.50" or "Invoice Number INV-7": a known label phrase, then its value, no colon. */
function knownPrefix(line: Line, isLabel: LabelTest): Chunk | null {
  const phrases: string[] = [];
  for (let k = 1; k <= Math.min(MAX_LABEL_WORDS, line.words.length - 1); k += 1) {
    phrases.push(k === 1 ? line.words[0]!.text : `${phrases[k - 2]} ${line.words[k - 1]!.text}`);
  }
  for (let k = phrases.length; k >= 1; k -= 1) {
    if (!LABEL_CONTINUES.test(line.words[k]!.text) && isLabel(stripLabel(phrases[k - 1]!))) return { label: line.words.slice(0, k), value: line.words.slice(k) };
  }
  return null;
}

function pair(page: number, label: Word[], value: Word[], position: LabelValue['position']): LabelValue {
  return {
    label: stripLabel(label.map((w) => w.text).join(' ')),
    value: value.map((w) => w.text).join(' '),
    position,
    page,
    valueWords: value,
    valueBox: union(value.map((w) => w.bbox)),
    confidence: meanConfidence([...label, ...value]),
  };
}

/**
 * Finds label/value pairs: the value to the right of its label on the same line or the next
 * column of the same row, or else directly below it. A label is a short run ending in a colon
 * or a phrase `isLabel` knows.
 */
export function findPairs(page: PageText, isLabel: LabelTest): LabelValue[] {
  const pairs: LabelValue[] = [];
  const lines = page.lines;
  lines.forEach((line, index) => {
    const chunks = colonChunks(line.words, isLabel);
    if (chunks.length && chunks[0]!.label[0] === line.words[0]) {
      for (const chunk of chunks.slice(0, -1)) if (chunk.value.length) pairs.push(pair(page.number, chunk.label, chunk.value, 'right'));
      const last = chunks.at(-1)!;
      if (last.value.length) {
        pairs.push(pair(page.number, last.label, last.value, 'right'));
        return;
      }
      for (const value of valuesOf(lines, index, isLabel)) pairs.push(pair(page.number, last.label, value.line.words, value.position));
      return;
    }
    if (isLabel(stripLabel(line.text))) {
      for (const value of valuesOf(lines, index, isLabel)) pairs.push(pair(page.number, line.words, value.line.words, value.position));
      return;
    }
    const prefixed = knownPrefix(line, isLabel);
    if (prefixed) pairs.push(pair(page.number, prefixed.label, prefixed.value, 'right'));
  });
  return pairs;
}

/** A currency alone in its column ("EUR", "RM", "€") before the amount it qualifies. */
const CURRENCY_ONLY = /^(?:[A-Z]{2,3}|[^\p{L}\p{N}\s]{1,3})$/u;

/**
 * The value beside a label, else the one below it; both when the one beside has no digit and the
 * one below has: in a header row ("Beschreibung | Fälligkeit | Teilzahlung") the next column is
 * another heading, and the date sits under its own.
 */
function valuesOf(lines: Line[], index: number, isLabel: LabelTest): { line: Line; position: LabelValue['position'] }[] {
  const beside = valueBeside(lines, index, isLabel);
  if (beside && /\d/.test(beside.line.text)) return [beside];
  const below = valueBelow(lines, index, isLabel);
  if (!beside) return below ? [below] : [];
  return below && /\d/.test(below.line.text) ? [beside, below] : [beside];
}

function valueBeside(lines: Line[], index: number, isLabel: LabelTest): { line: Line; position: 'right' } | null {
  const next = lines[index + 1];
  if (!next || next.row !== lines[index]!.row || isLabelLine(next, isLabel)) return null;
  const after = lines[index + 2];
  if (CURRENCY_ONLY.test(next.text) && after && after.row === next.row && /\d/.test(after.text)) return { line: makeLine([...next.words, ...after.words], next.row), position: 'right' };
  return { line: next, position: 'right' };
}

function valueBelow(lines: Line[], index: number, isLabel: LabelTest): { line: Line; position: 'below' } | null {
  const label = lines[index]!;
  const { x, width, y, height } = label.bbox;
  const nextRow = lines.find((l) => l.row > label.row)?.row;
  if (nextRow === undefined) return null;
  const under = (l: Line) => l.bbox.x < x + width && l.bbox.x + l.bbox.width > x && l.bbox.y - (y + height) < BELOW_REACH * height;
  // A date under its heading may sit a row further down, past a line of another column ("Fälligkeit" over
  // "Zahlungsbedingungen: ..." beside it, then "03.10.2018"); an amount there is more likely a table's first row.
  const candidate = lines.find((l) => l.row === nextRow && under(l)) ?? lines.find((l) => l.row > nextRow && under(l) && parseDate(l.text) !== null);
  if (!candidate || isLabelLine(candidate, isLabel)) return null;
  return { line: candidate, position: 'below' };
}
