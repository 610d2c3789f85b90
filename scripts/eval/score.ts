import type { FoundField } from '../../src/extraction/types.js';
import { docexFieldName } from '../../src/templates/field-names.js';

/**
 * Scoring shared by every corpus, as ../shared/eval/README.md says an evaluation should score:
 * only the fields a document's truth lists; dates and amounts exact after normalisation,
 * identifiers exact after removing spaces, names and addresses right when at least 85% alike
 * once case, accents and punctuation are folded. Line items are scored as rows.
 */

/** A document's fields by docex name, values as strings. */
export type Flat = Map<string, string>;

/**
 * Expected invoice2data output as docex fields: names mapped, line tables as
 * `<name>.N.<column>`. `issuer` stands for the vendor only when `partner_name` is absent; `desc`
 * is invoice2data's own summary; lists of plain values have no docex form and are counted apart.
 */
export function flattenExpected(expected: Record<string, unknown>): { fields: Flat; skipped: number } {
  const fields: Flat = new Map();
  let skipped = 0;
  for (const [key, value] of Object.entries(expected)) {
    if (key === 'desc' || (key === 'issuer' && 'partner_name' in expected)) continue;
    const name = docexFieldName(key);
    if (Array.isArray(value)) {
      if (!value.every((v) => typeof v === 'object' && v !== null)) {
        skipped += 1;
        continue;
      }
      value.forEach((row: Record<string, unknown>, n) => {
        for (const [column, cell] of Object.entries(row)) fields.set(`${name}.${n}.${column}`, String(cell));
      });
    } else {
      fields.set(name, String(value));
    }
  }
  return { fields, skipped };
}

// ---------------------------------------------------------------------------------------------
// Comparing one value

type Kind = 'date' | 'amount' | 'name' | 'identifier';

/** How a field's values are compared, from the last part of its name. */
function kindOf(field: string): Kind {
  const name = field.slice(field.lastIndexOf('.') + 1);
  if (/(^|_)date(_|$)/.test(name)) return 'date';
  if (/(^|_)(amount|subtotal|total|price|quantity|qty|net|gross|sum)(_|$)/.test(name)) return 'amount';
  if (/(^|_)(name|address|description)$/.test(name)) return 'name';
  return 'identifier';
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Lower case, accents and punctuation folded away, single spaces: the corpus README's rule.
 * Close to src/extraction/lexicon.ts `foldPhrase` on purpose but kept apart: the yardstick must
 * not move when the label matching it measures is changed.
 */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** 1 - Levenshtein distance / the longer length. */
export function similarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - levenshtein(a, b) / longer;
}

export const NAMES_ALIKE = 0.85;

/** Whether a found value is right, and for names how alike the two were. */
export function compare(field: string, expected: string, got: string): { right: boolean; alike?: number } {
  const kind = kindOf(field);
  if (kind === 'name') {
    const alike = similarity(fold(expected), fold(got));
    return { right: alike >= NAMES_ALIKE, alike };
  }
  if (kind === 'date') return { right: got.trim() === expected.trim() };
  if (kind === 'amount' && DECIMAL.test(expected.trim())) {
    return { right: DECIMAL.test(got.trim()) && Number(got).toFixed(2) === Number(expected).toFixed(2) };
  }
  return { right: got.replace(/\s+/g, '') === expected.replace(/\s+/g, '') };
}

// ---------------------------------------------------------------------------------------------
// Judging a document

/** One expected field (or one cell of a found line-item row the truth has no row for) and what came out. */
export interface Judged {
  /** Corpus and path, e.g. `sroie-dev`, `invoice2data text, templates`. */
  run: string;
  /** Counts in the calibration table: generic extraction, not templates. */
  calibrated: boolean;
  document: string;
  field: string;
  /** Undefined for a found line-item row that no expected row pairs with. */
  expected?: string;
  found?: FoundField;
  right: boolean;
  alike?: number;
}

/** Line-item rows: how many the truth has, how many were found, how many were right. */
export interface RowTally {
  expected: number;
  found: number;
  right: number;
}

export const emptyRows = (): RowTally => ({ expected: 0, found: 0, right: 0 });

/** invoice2data's line columns as docex names; other columns are not scored. */
const LINE_COLUMNS: Readonly<Record<string, string>> = {
  description: 'description',
  desc: 'description',
  name: 'description',
  quantity: 'quantity',
  qty: 'quantity',
  unit_price: 'unit_price',
  price_unit: 'unit_price',
  price: 'unit_price',
  amount: 'amount',
  line_total: 'amount',
  price_subtotal: 'amount',
};

const LINE_CELL = /^line_items\.(\d+)\.(\w+)$/;
export const isLineItem = (field: string) => field.startsWith('line_items.');

/** Rows by their number, each a map of docex column to value; unknown columns left out. */
function rowsOf<T>(entries: Iterable<[string, T]>): Map<string, T>[] {
  const rows = new Map<number, Map<string, T>>();
  for (const [field, value] of entries) {
    const m = LINE_CELL.exec(field);
    const column = m && LINE_COLUMNS[m[2]!];
    if (!column) continue;
    const row = rows.get(Number(m[1])) ?? new Map<string, T>();
    rows.set(Number(m[1]), row.set(column, value));
  }
  return [...rows].sort(([a], [b]) => a - b).map(([, row]) => row);
}

function judgeRows(run: string, calibrated: boolean, document: string, expected: Flat, found: FoundField[], rows: RowTally): Judged[] {
  const want = rowsOf(expected);
  if (want.length === 0) return [];
  const have = rowsOf(found.map((f): [string, FoundField] => [f.field, f]));
  const columns = new Set(want.flatMap((row) => [...row.keys()]));
  const cellRight = (column: string, value: string, cell?: FoundField) => cell !== undefined && compare(column, value, cell.value).right;
  const unused = new Set(have.keys());
  const judged: Judged[] = [];
  want.forEach((row, n) => {
    // The found row that agrees on most of this row's columns (the first of equals), if any agrees.
    let pair: number | undefined;
    let best = 0;
    for (const i of unused) {
      const agree = [...row].filter(([column, value]) => cellRight(column, value, have[i]!.get(column))).length;
      if (agree > best) [pair, best] = [i, agree];
    }
    if (pair !== undefined) unused.delete(pair);
    const cells = [...row].map(([column, value]): Judged => {
      const cell = pair === undefined ? undefined : have[pair]!.get(column);
      return { run, calibrated, document, field: `line_items.${n}.${column}`, expected: value, found: cell, right: false, ...(cell && compare(column, value, cell.value)) };
    });
    if (cells.every((c) => c.right)) rows.right += 1;
    judged.push(...cells);
  });
  for (const i of unused) {
    for (const [column, cell] of have[i]!) {
      if (columns.has(column)) judged.push({ run, calibrated, document, field: `line_items.extra.${i}.${column}`, found: cell, right: false });
    }
  }
  rows.expected += want.length;
  rows.found += have.length;
  return judged;
}

/**
 * Every expected field of one document against the fields found: header fields one by one (the
 * first found field of a name counts), line items as rows paired with the found row that agrees
 * most; `rows` adds up the line-item rows.
 */
export function judgeDocument(run: string, calibrated: boolean, document: string, expected: Flat, found: FoundField[], rows: RowTally): Judged[] {
  const byName = new Map<string, FoundField>();
  for (const f of found) if (!byName.has(f.field)) byName.set(f.field, f);
  const header = [...expected].filter(([field]) => !isLineItem(field));
  return [
    ...header.map(([field, value]): Judged => {
      const f = byName.get(field);
      return { run, calibrated, document, field, expected: value, found: f, right: false, ...(f && compare(field, value, f.value)) };
    }),
    ...judgeRows(run, calibrated, document, expected, found, rows),
  ];
}

// ---------------------------------------------------------------------------------------------
// Tallies and tables

export const pct = (n: number, total: number) => (total ? `${((100 * n) / total).toFixed(0)}%` : '-');

/** Precision counts wrong values of expected fields; recall counts every expected field. */
export function f1(judged: Judged[]): { p: number; r: number; f: number } {
  const right = judged.filter((j) => j.right).length;
  const found = judged.filter((j) => j.found).length;
  return prf(right, found, judged.length);
}

export function prf(right: number, found: number, expected: number): { p: number; r: number; f: number } {
  const p = found ? right / found : 0;
  const r = expected ? right / expected : 0;
  return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
}

export const rowsF1 = (rows: RowTally) => prf(rows.right, rows.found, rows.expected).f;

export function describeRows(rows: RowTally): string {
  const { p, r, f } = prf(rows.right, rows.found, rows.expected);
  return `${rows.right} right of ${rows.expected} expected, ${rows.found} found: P ${p.toFixed(2)} R ${r.toFixed(2)} F1 ${f.toFixed(2)}`;
}

/** Judged entries grouped by a key, the keys in order. */
export function groupBy<T>(items: T[], key: (item: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return [...groups].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
}

/** Header fields right per field and in all, for the expected fields of one run. */
export function printFieldTable(judged: Judged[]): { right: number; total: number } {
  const header = judged.filter((j) => !isLineItem(j.field));
  console.log('field                    right/total       %');
  for (const [field, items] of groupBy(header, (j) => j.field)) {
    const right = items.filter((j) => j.right).length;
    console.log(`${field.padEnd(24)} ${`${right}/${items.length}`.padStart(11)} ${pct(right, items.length).padStart(7)}`);
  }
  const right = header.filter((j) => j.right).length;
  console.log(`${'all fields'.padEnd(24)} ${`${right}/${header.length}`.padStart(11)} ${pct(right, header.length).padStart(7)}`);
  return { right, total: header.length };
}

const BANDS: [number, number][] = [[0, 49], [50, 69], [70, 79], [80, 89], [90, 94], [95, 100]];
export const CONFIDENT = 90;
export const CONFIDENT_TARGET = 0.97;

/** Found values of generic extraction by confidence band: how many, and the share right. */
export function printCalibration(judged: Judged[]): { right: number; total: number } {
  const scored = judged.filter((j) => j.calibrated && j.found);
  console.log('confidence   fields   right   share right');
  for (const [low, high] of BANDS) {
    const band = scored.filter((j) => j.found!.confidence >= low && (j.found!.confidence < high + 1 || high === 100));
    const right = band.filter((j) => j.right).length;
    console.log(`${`${low}-${high}`.padEnd(10)} ${String(band.length).padStart(8)} ${String(right).padStart(7)} ${pct(right, band.length).padStart(13)}`);
  }
  const confident = scored.filter((j) => j.found!.confidence >= CONFIDENT);
  return { right: confident.filter((j) => j.right).length, total: confident.length };
}

const quote = (text: string | undefined) => (text === undefined ? '(nothing)' : JSON.stringify(text));

/** Every wrong field, one line each, sorted by run, document and field so that two runs diff cleanly. */
export function printWrong(judged: Judged[]): void {
  const wrong = judged.filter((j) => !j.right);
  const order = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
  wrong.sort((a, b) => order(a.run, b.run) || order(a.document, b.document) || order(a.field, b.field));
  console.log('run | document | field | expected | got | confidence | explanation');
  for (const j of wrong) {
    const alike = j.alike === undefined ? '' : ` (${(100 * j.alike).toFixed(0)}% alike)`;
    const got = `${quote(j.found?.value)}${alike}`;
    const expected = j.expected === undefined ? '(no such row)' : quote(j.expected);
    console.log(`${j.run} | ${j.document} | ${j.field} | ${expected} | ${got} | ${j.found?.confidence ?? '-'} | ${(j.found?.explanation ?? '').replace(/\s+/g, ' ')}`.trimEnd());
  }
}
