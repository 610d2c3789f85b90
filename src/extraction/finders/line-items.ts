import { union } from '../layout.js';
import { median } from '../median.js';
import { amountsAgree, currencyOf, decimalMark, parseAmount } from '../normalise.js';
import type { Box, DocumentText, FoundField, Line, PageText, Word } from '../types.js';
import { endLabel, findHeader, mentionsEnd, NUMERIC_KINDS, span, type Column, type ColumnKind } from './line-items-header.js';

/**
 * Generic line items: item tables found by their header row (description / quantity / unit price /
 * amount / tax rate / code / unit, in the languages of `lexicon/columns`), read row by row under it.
 *
 * - Each word of a row goes to a column by where it sits under the header: text by its left edge,
 *   numbers by whichever of their left edge, right edge or centre lines up with a header cell
 *   (numbers are right-aligned under their header on most invoices, left-aligned on some).
 * - A row with a description and an amount or unit price starts an item; a row with text only in
 *   the description column, aligned with it and as close as the table's closest rows, continues
 *   its description; a row with the numbers but no description takes the text rows above it.
 * - The table ends at a totals label (Subtotal, Zwischensumme, Total), at a row with text where
 *   numbers belong, at a wide vertical gap or at the page end; after a section subtotal a full item
 *   row within two rows resumes it. A table cut by the page end (or an "Übertrag" label) goes on at
 *   the first full item row of the next page, or under that page's repeated header.
 * - Values: amounts and unit prices as 2-decimal strings (`parseAmount`), quantities and tax rates
 *   as plain decimals ("2", "1.5", "19"). A row whose quantity x unit price equals its amount
 *   within a cent gets a higher confidence.
 */

export interface LineItemCell {
  value: string;
  page: number;
  bbox: Box;
  /** 0-100. */
  confidence: number;
  /** The column's header as printed. */
  column: string;
}

export const LINE_ITEM_KEYS = ['description', 'quantity', 'unit_price', 'amount', 'tax_rate', 'code', 'unit'] as const;
export type LineItemKey = (typeof LINE_ITEM_KEYS)[number];

export interface LineItem {
  /** The page the item's row starts on. */
  page: number;
  /** 1-based position of the item among the document's item rows (a table continued on the next page keeps counting). */
  row: number;
  cells: Partial<Record<LineItemKey, LineItemCell>>;
  /** How quantity x unit price compares with the amount. */
  check: 'fits' | 'differs' | 'unchecked';
  /** The arithmetic, e.g. "3 x 100.00 = 300.00". */
  checkNote?: string;
  /** Read under an item table's header, or from rows whose figures multiply out on a page without one. */
  source: 'table' | 'rows';
}

// ---------------------------------------------------------------------------------------------
// Rows and words

/** A visual row of a page: its lines left to right. Text height and character width are worked out when first asked for: most rows are never read as table rows. */
class Row {
  readonly y0: number;
  readonly cy: number;
  #height?: number;
  #charWidth?: number;

  constructor(
    readonly page: number,
    readonly lines: Line[],
  ) {
    let y0 = Infinity;
    let y1 = -Infinity;
    for (const line of lines) {
      y0 = Math.min(y0, line.bbox.y);
      y1 = Math.max(y1, line.bbox.y + line.bbox.height);
    }
    this.y0 = y0;
    this.cy = (y0 + y1) / 2;
  }

  /** Median word height, as a page fraction. */
  get height(): number {
    return (this.#height ??= this.#median((w) => w.bbox.height) ?? 0.01);
  }

  /** Median character width, as a page fraction. */
  get charWidth(): number {
    return (this.#charWidth ??= this.#median((w) => w.bbox.width / Math.max(1, w.text.length)) ?? 0.005);
  }

  #median(of: (word: Word) => number): number | undefined {
    const values: number[] = [];
    for (const line of this.lines) for (const word of line.words) values.push(of(word));
    return values.sort((a, b) => a - b)[values.length >> 1];
  }
}

function rowsOf(page: PageText): Row[] {
  const rows: Row[] = [];
  let lines: Line[] = [];
  const flush = () => {
    if (!lines.length) return;
    lines.sort((a, b) => a.bbox.x - b.bbox.x);
    rows.push(new Row(page.number, lines));
    lines = [];
  };
  // wordsToLines emits a page's lines row by row; sort first in case a caller did not.
  const ordered = page.lines.every((l, i) => i === 0 || page.lines[i - 1]!.row <= l.row) ? page.lines : [...page.lines].sort((a, b) => a.row - b.row);
  ordered.forEach((line, i) => {
    if (i > 0 && ordered[i - 1]!.row !== line.row) flush();
    lines.push(line);
  });
  flush();
  return rows;
}

const CURRENCY_SIGN = /^(?:[$€£¥₹₩₽₺₪]|US\$|[A-Z]{1,2}\$|RM|Rp\.?|Rs\.?|zł|kr|Kč|Fr\.)/u;
const NUMBER = /^[-−+]?\(?[-−]?(?:\d{1,3}(?:[.,'’\u00a0\u202f]\d{3})+|\d+)(?:[.,]\d+)?\)?-?$/;

type WordKind = 'number' | 'currency' | 'dash' | 'text';

/** Kinds per printed word: a table asks about each word several times, and documents repeat their words. */
const kinds = new Map<string, WordKind>();
const KINDS_MAX = 20_000;

/** A word's part in a table cell: a number (with its currency sign or percent sign), a bare currency, a placeholder dash, or text. */
function wordKind(text: string): WordKind {
  let kind = kinds.get(text);
  if (kind === undefined) {
    kind = kindOf(text);
    if (kinds.size >= KINDS_MAX) kinds.clear();
    kinds.set(text, kind);
  }
  return kind;
}

function kindOf(text: string): WordKind {
  if (/^[-–—*/.]+$/.test(text)) return 'dash';
  let rest = text.replace(CURRENCY_SIGN, '');
  const iso = /^[A-Z]{3}/.exec(rest);
  if (iso && currencyOf(iso[0]) === iso[0]) rest = rest.slice(3);
  if (!rest) return 'currency';
  rest = rest.replace(/(?:[$€£¥]|\s?%|\*)$/u, '');
  const code = /[A-Z]{3}$/.exec(rest);
  if (code && currencyOf(code[0]) === code[0]) rest = rest.slice(0, -3);
  if (NUMBER.test(rest)) return 'number';
  // A quantity with its unit in one word ("1.00kg", "2pcs", "3Std.").
  const unit = UNIT_SUFFIX.exec(rest);
  if (unit && NUMBER.test(unit[1]!)) return 'number';
  return 'text';
}

const UNIT_SUFFIX = /^(.*?\d)(\p{L}{1,4}\.?|m²|m³)$/u;

function wordsText(words: Word[]): string {
  return words.map((w) => w.text).join(' ');
}

function meanConfidence(words: Word[]): number {
  return words.reduce((sum, w) => sum + w.confidence, 0) / (words.length || 1);
}

// ---------------------------------------------------------------------------------------------
// Cells of a row

interface Cell {
  words: Word[];
  numeric: boolean;
  col: number;
}

interface Table {
  columns: Column[];
  /** Boundaries between neighbouring columns' zones: the middle of the gap between their header cells. */
  bounds: number[];
}

function tableOf(columns: Column[]): Table {
  const bounds: number[] = [];
  for (let i = 0; i + 1 < columns.length; i += 1) bounds.push((columns[i]!.x1 + columns[i + 1]!.x0) / 2);
  return { columns, bounds };
}

function zoneAt(table: Table, x: number): number {
  let i = 0;
  while (i < table.bounds.length && x >= table.bounds[i]!) i += 1;
  return i;
}

/** How badly a number sits under a column: the closest of its edges and centre to the header's, more when outside the column's zone. */
function numberCost(table: Table, { x0, x1 }: { x0: number; x1: number }, col: number): number {
  const c = table.columns[col]!;
  const edge = Math.min(Math.abs(x0 - c.x0), Math.abs(x1 - c.x1), Math.abs((x0 + x1) / 2 - (c.x0 + c.x1) / 2));
  const inZone = zoneAt(table, x0) === col || zoneAt(table, x1) === col || zoneAt(table, (x0 + x1) / 2) === col;
  return edge + (inZone ? 0 : 0.5) + (c.kind === 'description' ? 0.02 : 0);
}

/** Puts a row's numbers in columns left to right, one per column, at the least total misalignment. */
function placeNumbers(table: Table, cells: Cell[]): void {
  const n = cells.length;
  const m = table.columns.length;
  if (!n) return;
  const SKIP = 0.6;
  const spans = cells.map((c) => span(c.words));
  // best[i][j]: cost of placing the first i numbers in the first j columns.
  const best: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(Infinity));
  const choice: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let j = 0; j <= m; j += 1) best[0]![j] = 0;
  for (let i = 1; i <= n; i += 1) {
    for (let j = 0; j <= m; j += 1) {
      let value = best[i - 1]![j]! + SKIP;
      let how = -1;
      if (j > 0 && best[i]![j - 1]! < value) {
        value = best[i]![j - 1]!;
        how = -2;
      }
      if (j > 0) {
        const placed = best[i - 1]![j - 1]! + numberCost(table, spans[i - 1]!, j - 1);
        if (placed < value) {
          value = placed;
          how = j - 1;
        }
      }
      best[i]![j] = value;
      choice[i]![j] = how;
    }
  }
  let i = n;
  let j = m;
  while (i > 0) {
    const how = choice[i]![j]!;
    if (how === -2) j -= 1;
    else if (how === -1) {
      cells[i - 1]!.col = -1;
      i -= 1;
    } else {
      cells[i - 1]!.col = how;
      i -= 1;
      j -= 1;
    }
  }
}

const TEXT_KINDS = new Set<ColumnKind>(['description', 'code', 'unit', 'other']);

/** Cuts a row into cells: runs of text, and numbers with their currency; then gives each a column. */
function cellsOf(table: Table, row: Row): Cell[] {
  const cells: Cell[] = [];
  // Text starts at its column's left edge, give or take the cell's padding: a few characters left of the header is still that column.
  const textZone = (word: Word) => zoneAt(table, Math.min(word.bbox.x + 3 * row.charWidth, word.bbox.x + word.bbox.width));
  for (const line of row.lines) {
    let current: Cell | null = null;
    let pending: Word[] = [];
    line.words.forEach((word, i) => {
      let kind = wordKind(word.text);
      const next = line.words[i + 1];
      if (kind === 'dash') {
        // A dash among text is text ("- Garantie"); alone it stands for an empty cell.
        if (current && !current.numeric) current.words.push(word);
        else if (next && wordKind(next.text) === 'text') cells.push((current = { words: [word], numeric: false, col: textZone(next) }));
        else current = null;
        return;
      }
      // A number that starts a text in a text column ("2 Nächte Hotel") is part of the text, and so is a measure one space after a word ("Lime 50G").
      if (kind === 'number' && !(current && !current.numeric) && next && wordKind(next.text) === 'text' && TEXT_KINDS.has(table.columns[zoneAt(table, word.bbox.x + word.bbox.width)]!.kind)) kind = 'text';
      const before = line.words[i - 1];
      if (kind === 'number' && current && !current.numeric && before && UNIT_SUFFIX.test(word.text) && word.bbox.x - (before.bbox.x + before.bbox.width) < 1.5 * row.charWidth) kind = 'text';
      if (kind === 'currency') {
        if (current?.numeric && !pending.length) current.words.push(word);
        else pending.push(word);
        return;
      }
      const zone = zoneAt(table, word.bbox.x);
      if (kind === 'number') {
        const last = current?.words.at(-1);
        if (current && !current.numeric && zone === current.col) {
          current.words.push(...pending, word);
        } else if (current?.numeric && last && /^\d{3}(?:[.,]\d+)?$/.test(word.text) && /\d$/.test(last.text) && word.bbox.x - (last.bbox.x + last.bbox.width) < 0.8 * row.charWidth) {
          current.words.push(word); // "1 000,00" read as two words
        } else {
          current = { words: [...pending, word], numeric: true, col: -1 };
          cells.push(current);
        }
        pending = [];
        return;
      }
      if (current && (!current.numeric || !(TEXT_KINDS.has(table.columns[zone]!.kind) && zone !== zoneAt(table, span(current.words).x0)))) {
        current.words.push(...pending, word);
      } else {
        current = { words: [...pending, word], numeric: false, col: textZone(word) };
        cells.push(current);
      }
      pending = [];
    });
  }
  placeNumbers(
    table,
    cells.filter((c) => c.numeric),
  );
  return cells;
}

// ---------------------------------------------------------------------------------------------
// Row roles

type Role = 'item' | 'text' | 'numbers' | 'other' | 'end' | 'carry' | 'misfit';

interface RowRead {
  row: Row;
  role: Role;
  /** Words per column kind, left to right. */
  byKind: Map<ColumnKind, { words: Word[]; columns: Column[]; numeric: boolean }>;
  /** Left edge of the description text. */
  descX0: number;
  /** Description, amount and a quantity or unit price: a row that can start or resume a table by itself. */
  strong: boolean;
}

const UNIT_WORD = /^\p{L}{1,6}\.?$/u;
const TAX_CODE = /^[A-Z]{1,3}\d?$/;

function hasLetters(words: Word[]): boolean {
  return words.some((w) => /\p{L}/u.test(w.text));
}

function readRow(table: Table, row: Row): RowRead {
  const byKind: RowRead['byKind'] = new Map();
  let stray = false;
  let firstText: Word[] | null = null;
  for (const cell of cellsOf(table, row)) {
    if (cell.col < 0) continue;
    const column = table.columns[cell.col]!;
    if (!cell.numeric) {
      firstText ??= cell.words;
      if (NUMERIC_KINDS.has(column.kind)) {
        const text = wordsText(cell.words);
        const fits = (column.kind === 'quantity' && UNIT_WORD.test(text)) || ((column.kind === 'tax' || column.kind === 'tax_rate') && TAX_CODE.test(text));
        if (!fits) stray = true;
      }
    }
    const entry = byKind.get(column.kind);
    if (entry) {
      entry.words.push(...cell.words);
      if (!entry.columns.includes(column)) entry.columns.push(column);
      entry.numeric ||= cell.numeric;
    } else byKind.set(column.kind, { words: [...cell.words], columns: [column], numeric: cell.numeric });
  }
  const description = byKind.get('description');
  const hasDescription = !!description?.words.length;
  const number = (kind: ColumnKind) => byKind.get(kind)?.words.some((w) => wordKind(w.text) === 'number') ?? false;
  // A unit price alone makes an item only in a table without an amount column (a price list).
  const hasAmountColumn = table.columns.some((c) => c.kind === 'amount');
  const priced = number('amount') || (number('unit_price') && (number('quantity') || !hasAmountColumn));
  const strong = hasDescription && number('amount') && (number('quantity') || number('unit_price'));
  const numbersOutside = [...byKind.entries()].some(([kind, e]) => kind !== 'description' && kind !== 'code' && kind !== 'other' && e.words.some((w) => wordKind(w.text) === 'number'));
  let role: Role;
  // A totals label ends the table, even on a row shaped like an item ("Umsatzsteuer (S) 275,00 7 19,25") when it is all the row says.
  const label = firstText ? endLabel(firstText) : null;
  const end = label && (!strong || label.rest.every((t) => t.length <= 2)) ? label.kind : !strong && firstText && mentionsEnd(firstText) ? 'end' : null;
  if (end) role = end;
  else if (stray && !strong) role = 'misfit';
  else if (hasDescription && priced) role = 'item';
  else if (priced) role = 'numbers';
  else if (!numbersOutside && (hasDescription || byKind.has('code'))) role = 'text';
  else role = 'other';
  const descX0 = description ? span(description.words).x0 : Infinity;
  return { row, role, byKind, descX0, strong };
}

// ---------------------------------------------------------------------------------------------
// Tables over pages

interface Segment {
  table: Table;
  rows: RowRead[];
}

/** Rows a table may pause for after a totals label (a section subtotal) and after a row that does not fit it (item details, notes). */
const AFTER_TOTAL = 2;
const AFTER_MISFIT = 10;

/** Finds the item tables of a document and the rows that belong to them, page by page. */
function segmentsOf(doc: DocumentText): Segment[] {
  const segments: Segment[] = [];
  let table: Table | null = null;
  let segment: Segment | null = null;
  let state: 'idle' | 'pre' | 'table' | 'suspended' | 'seek' = 'idle';
  let goesOn = false;
  for (const page of doc.pages) {
    const rows = rowsOf(page);
    state = goesOn && table ? 'seek' : 'idle';
    goesOn = false;
    let lastCy = 0;
    let prevCy = 0;
    let height = 0;
    let waited = 0;
    let budget = 0;
    let closedByTotal = false;
    /** The table ended at a wide gap: it goes on on the next page unless a totals label follows on this one. */
    let openEnded = false;
    const pitches: number[] = [];
    const start = (t: Table, cy: number, h: number) => {
      table = t;
      segment = { table: t, rows: [] };
      segments.push(segment);
      lastCy = cy;
      prevCy = cy;
      height = h;
      pitches.length = 0;
      waited = 0;
      closedByTotal = false;
      openEnded = false;
    };
    const push = (read: RowRead) => {
      segment!.rows.push(read);
      pitches.push(read.row.cy - lastCy);
      lastCy = read.row.cy;
    };
    const suspend = (read: RowRead) => {
      closedByTotal ||= read.role === 'end';
      goesOn ||= read.role === 'carry';
      budget = Math.min((state as string) === 'suspended' ? budget - waited : Infinity, closedByTotal ? AFTER_TOTAL : AFTER_MISFIT);
      waited = 0;
      state = 'suspended';
      segment!.rows.push({ ...read, role: 'end' });
    };
    for (let r = 0; r < rows.length; r += 1) {
      const row = rows[r]!;
      const header = findHeader(rows, r);
      if (header) {
        start(tableOf(header.columns), rows[header.last]!.cy, row.height);
        state = 'pre';
        r = header.last;
        continue;
      }
      if (state === 'idle' || !table) {
        if (openEnded && row.lines[0] && endLabel(row.lines[0].words)) openEnded = false;
        continue;
      }
      const read = readRow(table, row);
      const pitch = row.cy - lastCy;
      const typical = median(pitches.slice(-8)) ?? 2 * height;
      const wide = row.cy - prevCy > Math.max(8 * height, 3 * typical);
      prevCy = row.cy;
      if (state === 'seek') {
        // A table cut by the page end goes on at the first full item row of the next page.
        if (read.strong && read.role === 'item' && row.y0 < 0.6) {
          start(table, row.cy - 2 * row.height, row.height);
          push(read);
          state = 'table';
        }
        continue;
      }
      if (state === 'pre') {
        if (read.role === 'item' || read.role === 'numbers') {
          push(read);
          state = 'table';
        } else if (pitch > 8 * height || (waited += 1) > 4 || read.role === 'end') {
          state = 'idle';
        } else if (read.role === 'text') {
          push(read);
        }
        continue;
      }
      if (state === 'table') {
        if (wide) {
          state = 'idle';
          openEnded = read.role !== 'end' && !(row.lines[0] && endLabel(row.lines[0].words));
        }
        else if (read.role === 'end' || read.role === 'misfit' || read.role === 'carry') suspend(read);
        else push(read);
        continue;
      }
      // Suspended: a full item row soon after resumes the table.
      waited += 1;
      if (wide) state = 'idle';
      else if (read.role === 'item' && read.strong && waited <= budget) {
        push(read);
        state = 'table';
      } else if (read.role === 'end' || read.role === 'carry') suspend(read);
      else if (waited >= budget) state = 'idle';
    }
    const at = state as string; // set in the loop and in `suspend`
    if (at === 'table' || at === 'pre' || (at === 'suspended' && !closedByTotal) || openEnded) goesOn = true;
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------
// Values

/** A number as printed, read with `parseAmount`'s rules but keeping every decimal; `alternative` reads "1.000" as 1 rather than 1000. */
function decimalOf(text: string): { value: number; alternative?: number } | null {
  const m = /[-−]?\d[\d.,'’\u00a0\u202f]*/.exec(text);
  if (!m) return null;
  const raw = m[0].replace(/[.,'’\u00a0\u202f]+$/, '');
  const negative = raw.startsWith('-') || raw.startsWith('−') || /\d-$/.test(text.trim()) || /^\(.*\)$/.test(text.trim());
  const digits = raw.replace(/^[-−]/, '');
  const plain = (s: string) => Number(s.replace(/[^\d]/g, ''));
  const { at: decimalAt, threeAfter } = decimalMark(digits);
  // "1,000" read as a thousand, or as one with three decimals: the caller keeps whichever multiplies out.
  const alternative = threeAfter ? Number(`${plain(digits.slice(0, -4))}.${digits.slice(-3)}`) : undefined;
  const value = decimalAt >= 0 ? Number(`${plain(digits.slice(0, decimalAt))}.${digits.slice(decimalAt + 1)}`) : plain(digits);
  const sign = negative ? -1 : 1;
  return { value: sign * value, alternative: alternative === undefined ? undefined : sign * alternative };
}

/** A plain decimal without trailing zeros: 2, 1.5, 0.125. */
function plainDecimal(n: number): string {
  return String(Number(n.toFixed(6)));
}

function amountOf(words: Word[]): { value: string; amount: number } | null {
  const numbers = words.filter((w) => wordKind(w.text) !== 'text');
  const text = wordsText(numbers.length ? numbers : words);
  const parsed = parseAmount(text);
  if (!parsed) return null;
  // "100,00-": a credit written with the minus after the figure.
  const value = /\d-$/.test(text.trim()) && !parsed.value.startsWith('-') && Number(parsed.value) !== 0 ? `-${parsed.value}` : parsed.value;
  return { value, amount: Number(value) };
}

/** A unit price with the decimals it is printed with beyond the cents ("3,3333" is 3.3333; "9,9000" is 9.90). */
function precise(words: Word[], value: string): string {
  const { number } = numberWords(words);
  const exact = number.length ? decimalOf(wordsText(number)) : null;
  if (!exact || Math.abs(exact.value - Number(value)) < 1e-9 || Math.abs(exact.value - Number(value)) >= 0.01) return value;
  return exact.value.toFixed(Math.min(6, Math.max(2, (plainDecimal(exact.value).split('.')[1] ?? '').length)));
}

/** The number of a cell, the words it was read from, and the text after it (a unit: "1.00 kg"). */
function numberWords(words: Word[]): { number: Word[]; rest: Word[] } {
  const at = words.findIndex((w) => wordKind(w.text) === 'number');
  if (at < 0) return { number: [], rest: words };
  return { number: words.slice(0, at + 1), rest: words.slice(at + 1) };
}

const near = (a: number, b: number, tolerance: number) => Math.abs(a - b) <= tolerance + 1e-9;

/** An item while its table is read: the row that starts it, rows that complete it, its description lines. */
interface Draft {
  page: number;
  byKind: RowRead['byKind'];
  /** Description lines, top to bottom. */
  lines: Word[][];
  descX0: number;
  /** Centre of the item's lowest row. */
  lastCy: number;
}

const DESCRIPTION_LABEL = 'Description';
const NUMBER_KINDS: ColumnKind[] = ['quantity', 'unit_price', 'amount', 'tax_rate', 'tax', 'discount'];

function cell(words: Word[], value: string, page: number, column: string): LineItemCell {
  return { value, page, bbox: union(words.map((w) => w.bbox)), confidence: meanConfidence(words), column };
}

function descriptionOf(read: RowRead): Word[] {
  return read.byKind.get('description')?.words ?? [];
}

function draftOf(read: RowRead, lines: Word[][]): Draft {
  // The row's cells are the draft's own: a row is read into one item only.
  return { page: read.row.page, byKind: read.byKind, lines, descX0: read.descX0, lastCy: read.row.cy };
}

function hasNumber(read: RowRead, kind: ColumnKind): boolean {
  return read.byKind.get(kind)?.words.some((w) => wordKind(w.text) === 'number') ?? false;
}

/**
 * Whether a row right under an item holds the numbers the item row lacks (an amount printed a
 * line lower, as tables with cells of several lines centre or stagger them): then it completes the item.
 */
function completes(draft: Draft, read: RowRead): boolean {
  if (read.row.page !== draft.page || read.row.cy - draft.lastCy > 1.5 * read.row.height) return false;
  if (read.byKind.get('description')?.words.some((w) => wordKind(w.text) === 'text')) return false;
  const adds = NUMBER_KINDS.filter((k) => hasNumber(read, k));
  return adds.length > 0 && adds.every((k) => !draft.byKind.has(k));
}

function complete(draft: Draft, read: RowRead): void {
  for (const kind of NUMBER_KINDS) if (hasNumber(read, kind)) draft.byKind.set(kind, read.byKind.get(kind)!);
  draft.lastCy = read.row.cy;
}

/** Description lines joined by line breaks, a word broken at a hyphen ("4-" / "Fahrten" / "-Karte") joined again. */
function joinLines(lines: string[]): string {
  let text = '';
  for (const line of lines) text += !text ? line : /\p{L}-$|\d-$/u.test(text) || /^-\p{L}/u.test(line) ? line : `\n${line}`;
  return text;
}

/** The item's values: description, code, quantity and unit, prices, tax rate, and how quantity x unit price fits the amount. */
function itemOf(draft: Draft, descColumn: string): LineItem {
  const { page } = draft;
  const cells: LineItem['cells'] = {};
  const get = (kind: ColumnKind) => draft.byKind.get(kind);
  const label = (kind: ColumnKind) => get(kind)!.columns.map((c) => c.label).join(' / ');

  const codeCell = get('code');
  if (codeCell?.words.length) cells.code = cell(codeCell.words, wordsText(codeCell.words), page, label('code'));
  const lines = draft.lines.map((l) => [...l]).filter((l) => l.length);
  // "[FURN_7777] Office Chair", "*987123* Olive Oil": a product code or barcode printed before the description.
  const first = lines[0];
  const tagged = first && first.length > 1 ? /^(?:\[([^\]\s]{1,40})\]|\*(\d{4,20})\*)$/.exec(first[0]!.text) : null;
  if (tagged) {
    if (!cells.code) cells.code = cell([first![0]!], tagged[1] ?? tagged[2]!, page, descColumn);
    first!.shift();
  }
  // A first line of figures only over the description's text ("9555067700208" / "- IK YELLOW 70GRAMS"): the product's code.
  if (lines.length && !hasLetters(lines[0]!)) {
    const digits = lines.shift()!;
    // An amount is no code: a figure that strayed into the description column.
    if (!cells.code && !digits.some((w) => /\d[.,]\d{2}$/.test(w.text))) cells.code = cell(digits, wordsText(digits), page, descColumn);
  }
  const descWords = lines.flat();
  if (descWords.length) {
    cells.description = cell(descWords, joinLines(lines.map(wordsText)), page, descColumn);
    cells.description.confidence *= lines.length > 1 ? 0.95 : 1;
  }

  let quantity: { value: number; alternative?: number } | null = null;
  let quantityWords: Word[] = [];
  const q = get('quantity');
  if (q) {
    const { number, rest } = numberWords(q.words);
    quantity = number.length ? decimalOf(wordsText(number)) : null;
    quantityWords = number;
    const unitWords = rest.filter((w) => UNIT_WORD.test(w.text));
    const suffix = number.length ? UNIT_SUFFIX.exec(number.at(-1)!.text) : null;
    if (unitWords.length && !get('unit')) cells.unit = cell(unitWords, wordsText(unitWords).replace(/\.$/, ''), page, label('quantity'));
    else if (suffix && !/^x$/i.test(suffix[2]!) && !get('unit')) cells.unit = cell([number.at(-1)!], suffix[2]!.replace(/\.$/, ''), page, label('quantity'));
  }
  const u = get('unit');
  if (u && hasLetters(u.words)) cells.unit = cell(u.words, wordsText(u.words), page, label('unit'));
  const price = get('unit_price') ? amountOf(get('unit_price')!.words) : null;
  const amount = get('amount') ? amountOf(get('amount')!.words) : null;
  const discount = get('discount') ? decimalOf(wordsText(get('discount')!.words)) : null;
  for (const kind of ['tax_rate', 'tax'] as const) {
    const t = get(kind);
    if (!t || cells.tax_rate) continue;
    const { number } = numberWords(t.words);
    const rate = number.length ? decimalOf(wordsText(number)) : null;
    const percent = t.words.some((w) => w.text.includes('%')) || t.columns.some((c) => c.percent);
    // A tax column holds rates ("19 %") or tax amounts; without a percent sign a small round number ("19", "7.7") beside a larger amount is a rate.
    const decimals = /[.,](\d+)\s*%?$/.exec(wordsText(number))?.[1] ?? '';
    const round = Number.isInteger(rate ? rate.value * 10 : NaN) && (decimals.length < 2 || /^0+$/.test(decimals));
    if (rate && rate.value >= 0 && rate.value < 100 && (percent || (round && (kind === 'tax_rate' || (rate.value <= 30 && (!amount || Math.abs(amount.amount) > rate.value * 1.5)))))) {
      cells.tax_rate = cell(number, plainDecimal(rate.value), page, label(kind));
    }
  }

  // Quantity x unit price against the amount, with the reading of the quantity ("1,000" as 1 or 1000) that fits.
  let check: LineItem['check'] = 'unchecked';
  let checkNote: string | undefined;
  let qty = quantity?.value;
  if (quantity && price && amount) {
    const factor = discount && discount.value > 0 && discount.value < 100 ? 1 - discount.value / 100 : 1;
    const tolerance = 0.01 + 0.005 * Math.abs(quantity.value);
    const fits = (n: number) => near(n * price.amount, amount.amount, tolerance) || near(n * price.amount * factor, amount.amount, tolerance);
    if (fits(quantity.value)) check = 'fits';
    else if (quantity.alternative !== undefined && fits(quantity.alternative)) {
      qty = quantity.alternative;
      check = 'fits';
    } else check = 'differs';
    const product = (qty! * price.amount).toFixed(2);
    checkNote = check === 'fits' ? `${plainDecimal(qty!)} x ${price.value} = ${amount.value}` : `${plainDecimal(qty!)} x ${price.value} = ${product}, not the amount ${amount.value}`;
  } else if (!quantity && price && amount && near(price.amount, amount.amount, 0.01)) {
    check = 'fits';
    checkNote = `unit price ${price.value} = amount ${amount.value}`;
  }
  if (quantity && qty !== undefined) cells.quantity = cell(quantityWords, plainDecimal(qty), page, label('quantity'));
  if (price) cells.unit_price = cell(get('unit_price')!.words, precise(get('unit_price')!.words, price.value), page, label('unit_price'));
  if (amount) cells.amount = cell(get('amount')!.words, amount.value, page, label('amount'));

  // Confidence: the words' own (OCR), times how well the row adds up.
  const factor = check === 'fits' ? 0.95 : check === 'unchecked' ? 0.82 : 0.6;
  for (const key of LINE_ITEM_KEYS) {
    const c = cells[key];
    if (c) c.confidence = Math.round(c.confidence * (key === 'description' ? (check === 'fits' ? 0.9 : 0.75) : factor));
  }
  return { page, row: 0, cells, check, checkNote, source: 'table' };
}

/** The items of one table segment: item rows, with the rows that complete them and the text rows that continue their descriptions. */
function itemsOf(segment: Segment): LineItem[] {
  const heights = segment.rows.map((r) => r.row.height);
  const height = median(heights) ?? 0.01;
  let closest = Infinity;
  for (let i = 1; i < segment.rows.length; i += 1) {
    const a = segment.rows[i - 1]!;
    const b = segment.rows[i]!;
    if (a.role !== 'end' && b.role !== 'end' && a.row.page === b.row.page) closest = Math.min(closest, b.row.cy - a.row.cy);
  }
  const pitch = Math.max(closest, height);
  const descColumn = segment.table.columns.find((c) => c.kind === 'description')?.label ?? DESCRIPTION_LABEL;
  const drafts: Draft[] = [];
  let last: Draft | null = null;
  let buffer: RowRead[] = [];

  /** Text rows under an item continue its description while aligned with it and as close as the table's closest rows. */
  const flush = () => {
    if (last) {
      for (const read of buffer) {
        const aligned = Math.abs(read.descX0 - last.descX0) <= 1.5 * read.row.charWidth;
        const close = read.row.cy - last.lastCy <= 1.3 * pitch && read.row.page === last.page;
        if (!aligned || !close) break;
        last.lines.push(descriptionOf(read));
        last.lastCy = read.row.cy;
      }
    }
    buffer = [];
  };

  /** Figures under the text rows they belong to: a description printed above its figures (and a product code, if any, beside them). */
  const fromAbove = (read: RowRead): boolean => {
    const above = buffer.filter((b) => b.row.page === read.row.page && Math.abs(b.descX0 - buffer[0]!.descX0) <= 1.5 * b.row.charWidth);
    buffer = [];
    last = null;
    if (!above.length || read.row.cy - above.at(-1)!.row.cy > 1.3 * pitch) return false;
    const code = read.byKind.get('description');
    last = draftOf(read, above.map(descriptionOf));
    last.descX0 = above[0]!.descX0;
    if (code?.words.length && !last.byKind.has('code') && !code.words.some((w) => /\d[.,]\d{2}$/.test(w.text))) last.byKind.set('code', code);
    drafts.push(last);
    return true;
  };

  // Where a table prints a description whose figures row carries only a code: above the figures when its first item does so.
  const first = segment.rows.findIndex((r) => r.role === 'item' || r.role === 'numbers');
  const textAbove = first > 0 && segment.rows[first - 1]!.role === 'text' && !hasLetters(descriptionOf(segment.rows[first]!));

  for (const read of segment.rows) {
    if (read.role === 'item' && textAbove && buffer.length && !hasLetters(descriptionOf(read))) {
      // "88888  1  10.00  10.00" under "ST-PRIVILEGE CARD": the number in the description column is the product's code.
      if (!fromAbove(read)) {
        last = draftOf(read, [descriptionOf(read)]);
        drafts.push(last);
      }
    } else if (read.role === 'item') {
      flush();
      last = draftOf(read, [descriptionOf(read)]);
      drafts.push(last);
    } else if (read.role === 'text') {
      buffer.push(read);
    } else if ((read.role === 'numbers' || read.role === 'other') && !buffer.length && last && completes(last, read)) {
      complete(last, read);
    } else if (read.role === 'numbers' && buffer.length) {
      fromAbove(read);
    } else {
      flush();
      last = null;
    }
  }
  flush();
  // A row that adds up the items before it and names a total ("TYPE: 2 TOTAL  5.9  10.40") is the table's total, not an item.
  const items: LineItem[] = [];
  let sum = 0;
  for (const draft of drafts) {
    const item = itemOf(draft, descColumn);
    const amount = item.cells.amount ? Number(item.cells.amount.value) : null;
    if (amount !== null && items.length >= 2 && amountsAgree(amount, sum) && mentionsEnd(draft.lines.flat())) continue;
    items.push(item);
    sum += amount ?? 0;
  }
  return items;
}

const TIMES = /^[x×@*]$/i;

/**
 * Rows shaped "description  qty  price  amount" whose figures multiply out, above the first
 * totals label of the page: the items of a till receipt that prints no column header. The
 * arithmetic is the evidence, so a row counts only when quantity x price = amount within a cent,
 * and a quantity of 1 only beside another such row.
 */
function headerlessItems(doc: DocumentText): LineItem[] {
  const found: { item: LineItem; trivial: boolean }[] = [];
  for (const page of doc.pages) {
    let above: Row | null = null;
    for (const row of rowsOf(page)) {
      const words = row.lines.flatMap((l) => l.words);
      if (endLabel(words) && words.some((w) => /\d[.,]\d{2}$/.test(w.text))) break;
      const figures: Word[] = [];
      let i = words.length - 1;
      for (; i >= 0 && figures.length < 3; i -= 1) {
        const kind = wordKind(words[i]!.text);
        if (kind === 'number') figures.unshift(words[i]!);
        else if (kind !== 'currency' && !TIMES.test(words[i]!.text)) break;
      }
      const before = words.slice(0, i + 1);
      const textRow = !figures.length && hasLetters(words);
      if (figures.length === 3 && !before.some((w) => wordKind(w.text) === 'number' && !hasLetters([w]))) {
        const qty = decimalOf(figures[0]!.text);
        const price = amountOf([figures[1]!]);
        const amount = amountOf([figures[2]!]);
        const overhead = above && row.cy - above.cy <= 2 * row.height ? above.lines.flatMap((l) => l.words) : [];
        // A lone code of letters and digits beside the figures ("SS04018600") leaves the description to the text row above.
        const code = before.length === 1 && /\d/.test(before[0]!.text) && /\p{L}/u.test(before[0]!.text) && overhead.length ? before : [];
        const description = code.length ? overhead : hasLetters(before) ? before : overhead;
        if (qty && qty.value > 0 && price && amount && description.length && near(qty.value * price.amount, amount.amount, 0.01)) {
          const note = `${plainDecimal(qty.value)} x ${price.value} = ${amount.value}`;
          const conf = (w: Word[]) => Math.round(meanConfidence(w) * 0.85);
          const item: LineItem = {
            page: page.number,
            row: 0,
            source: 'rows',
            check: 'fits',
            checkNote: note,
            cells: {
              description: { ...cell(description, wordsText(description), page.number, 'Description'), confidence: conf(description) },
              quantity: { ...cell([figures[0]!], plainDecimal(qty.value), page.number, 'Qty'), confidence: conf([figures[0]!]) },
              unit_price: { ...cell([figures[1]!], price.value, page.number, 'Price'), confidence: conf([figures[1]!]) },
              amount: { ...cell([figures[2]!], amount.value, page.number, 'Amount'), confidence: conf([figures[2]!]) },
              ...(code.length ? { code: { ...cell(code, code[0]!.text, page.number, 'Code'), confidence: conf(code) } } : {}),
            },
          };
          found.push({ item, trivial: qty.value === 1 });
        }
      }
      above = textRow ? row : null;
    }
  }
  return found.length >= 2 || found.some((f) => !f.trivial) ? found.map((f) => f.item) : [];
}

/** The line items of a document's item tables, in document order; without any table, receipt rows whose figures multiply out. */
export function findLineItems(doc: DocumentText): LineItem[] {
  let items = segmentsOf(doc)
    .flatMap(itemsOf)
    .filter((item) => item.cells.description || item.cells.code);
  if (!items.length) items = headerlessItems(doc);
  items.forEach((item, i) => (item.row = i + 1));
  return items;
}

/** The sum of the items' amounts, rounded to cents, or null when no item has an amount. */
export function lineItemSum(items: LineItem[]): number | null {
  let cents = 0;
  let any = false;
  for (const item of items) {
    const amount = item.cells.amount;
    if (!amount) continue;
    cents += Math.round(Number(amount.value) * 100);
    any = true;
  }
  return any ? cents / 100 : null;
}

/** The items as fields `line_items.N.<key>` (N from 0), each with its page, box, confidence and how it was found. */
export function lineItemFields(items: LineItem[]): FoundField[] {
  const fields: FoundField[] = [];
  items.forEach((item, n) => {
    for (const key of LINE_ITEM_KEYS) {
      const c = item.cells[key];
      if (!c) continue;
      const arithmetic = item.checkNote && (key === 'quantity' || key === 'unit_price' || key === 'amount') ? `; ${item.checkNote}` : '';
      fields.push({
        field: `line_items.${n}.${key}`,
        value: c.value,
        confidence: Math.max(0, Math.min(100, c.confidence)),
        explanation:
          item.source === 'table'
            ? `row ${item.row} of the item table on page ${c.page}, column '${c.column}'${arithmetic}`
            : `item row ${item.row} on page ${c.page} (no table header; its figures multiply out), ${c.column.toLowerCase()}${arithmetic}`,
        page: c.page,
        bbox: c.bbox,
      });
    }
  });
  return fields;
}
