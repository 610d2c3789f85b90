import { readdirSync, readFileSync } from 'node:fs';
import { foldPhrase, lexiconDir } from '../lexicon.js';
import type { Line, Word } from '../types.js';

/**
 * Item-table headers: the column words of `lexicon/columns/<lang>.json` and the header rows they
 * make. A file maps a column kind to the phrases that name it ("description": ["description",
 * "item", ...]), plus `qualifier` (words that only qualify a column: "incl. VAT", "EUR", "netto"),
 * `end` (labels that end a table: "Subtotal", "Zwischensumme") and `carry` (a table that goes on
 * on the next page: "Übertrag", "carried forward"). Phrases are compared as folded tokens (case,
 * accents and punctuation folded, "%" read as "percent", "#" and "N°" as "no"), so "Unit price
 * (EUR)", "Menge/Einheit" and "Disc.%" are matched word by word, with extra words around them.
 */

/** Column kinds, in the order an ambiguous header word ("Artikel": description or code) is given one. */
export const COLUMN_KINDS = ['description', 'quantity', 'unit_price', 'amount', 'tax_rate', 'tax', 'discount', 'unit', 'code', 'position', 'other'] as const;
export type ColumnKind = (typeof COLUMN_KINDS)[number];
type EntryKind = ColumnKind | 'qualifier';
export type EndKind = 'end' | 'carry';

/** Kinds whose cells hold numbers: text there (other than a unit or a placeholder) is no item row. */
export const NUMERIC_KINDS = new Set<ColumnKind>(['quantity', 'unit_price', 'amount', 'tax_rate', 'tax', 'discount', 'position']);

interface Entry<K> {
  tokens: string[];
  kinds: K[];
}

/** A column of an item table, from its header cell. */
export interface Column {
  kind: ColumnKind;
  /** The header as printed ("Unit price (EUR)"). */
  label: string;
  /** Left and right edge of the header cell's words, as page fractions. */
  x0: number;
  x1: number;
  /** The header names a percentage ("VAT %", "Rabatt %"). */
  percent: boolean;
}

/** Tokens as the column lexicon compares them. */
export function foldTokens(text: string): string[] {
  const folded = foldPhrase(text.replace(/%/g, ' percent ').replace(/#/g, ' no ').replace(/(?<![\p{L}\d])[nN]\s?[°º]/gu, ' no '));
  return folded ? folded.split(' ') : [];
}

function byOrder<K extends string>(order: readonly string[]) {
  return (a: K, b: K) => order.indexOf(a) - order.indexOf(b);
}

/** Indexes phrases by their first token, longest first, so that a row is matched in one pass over its tokens. */
function index<K extends string>(phrases: Map<string, Set<K>>, order: readonly string[]): Map<string, Entry<K>[]> {
  const byFirst = new Map<string, Entry<K>[]>();
  for (const [key, kinds] of phrases) {
    const entry = { tokens: key.split(' '), kinds: [...kinds].sort(byOrder<K>(order)) };
    const list = byFirst.get(entry.tokens[0]!) ?? [];
    list.push(entry);
    byFirst.set(entry.tokens[0]!, list);
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
  return byFirst;
}

function loadColumns(dir: string): { header: Map<string, Entry<EntryKind>[]>; end: Map<string, Entry<EndKind>[]> } {
  const header = new Map<string, Set<EntryKind>>();
  const end = new Map<string, Set<EndKind>>();
  const headerKinds = new Set<string>([...COLUMN_KINDS, 'qualifier']);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Record<string, string[]>;
    for (const [kind, phrases] of Object.entries(data)) {
      const target = headerKinds.has(kind) ? (header as Map<string, Set<string>>) : kind === 'end' || kind === 'carry' ? (end as Map<string, Set<string>>) : null;
      if (!target) continue;
      for (const phrase of phrases) {
        const key = foldTokens(phrase).join(' ');
        if (!key) continue;
        const kinds = target.get(key) ?? new Set<string>();
        kinds.add(kind);
        target.set(key, kinds);
      }
    }
  }
  return { header: index(header, [...COLUMN_KINDS, 'qualifier']), end: index(end, ['carry', 'end']) };
}

const lexicon = loadColumns(lexiconDir('columns'));

/** Folded tokens per printed word: documents repeat their words, and every row of every page is looked at. */
const tokenCache = new Map<string, string[]>();
const TOKEN_CACHE_MAX = 20_000;

export function wordTokens(text: string): string[] {
  let tokens = tokenCache.get(text);
  if (!tokens) {
    tokens = foldTokens(text);
    if (tokenCache.size >= TOKEN_CACHE_MAX) tokenCache.clear();
    tokenCache.set(text, tokens);
  }
  return tokens;
}

interface Token {
  token: string;
  word: Word;
}

/** The longest lexicon entry starting at `tokens[i]`. */
function longest<K>(byFirst: Map<string, Entry<K>[]>, tokens: Token[], i: number): Entry<K> | null {
  for (const entry of byFirst.get(tokens[i]!.token) ?? []) {
    if (i + entry.tokens.length > tokens.length) continue;
    if (entry.tokens.every((t, k) => tokens[i + k]!.token === t)) return entry;
  }
  return null;
}

/**
 * The label that ends an item table a text starts with ("Subtotal", "Total EUR", "Übertrag"), and
 * the tokens of the text after it; null when the text starts with none.
 */
export function endLabel(words: Word[]): { kind: EndKind; rest: string[] } | null {
  const tokens: Token[] = [];
  for (const word of words) for (const token of wordTokens(word.text)) tokens.push({ token, word });
  if (!tokens.length) return null;
  const entry = longest(lexicon.end, tokens, 0);
  return entry ? { kind: entry.kinds[0]!, rest: tokens.slice(entry.tokens.length).map((t) => t.token) } : null;
}

/** Whether a text names a total anywhere in it ("TYPE: 2 TOTAL", "Summe Position 1-4"). */
export function mentionsEnd(words: Word[]): boolean {
  const tokens: Token[] = [];
  for (const word of words) for (const token of wordTokens(word.text)) tokens.push({ token, word });
  for (let i = 0; i < tokens.length; i += 1) if (longest(lexicon.end, tokens, i)?.kinds.includes('end')) return true;
  return false;
}

interface HeaderCell {
  kinds: EntryKind[];
  words: Word[];
  line: Line;
  tokens: string[];
  known: boolean;
}

function lineTokens(line: Line): Token[] {
  const tokens: Token[] = [];
  for (const word of line.words) for (const token of wordTokens(word.text)) tokens.push({ token, word });
  return tokens;
}

/** A row's header cells, or null when the row is not a header: too few column words, or other words among them. */
function headerCells(lines: Line[]): HeaderCell[] | null {
  let known = 0;
  let total = 0;
  let columnWords = 0;
  for (const line of lines) {
    for (const word of line.words) {
      if (word.text.endsWith(':')) return null;
      if (lexicon.header.has(wordTokens(word.text)[0] ?? '')) columnWords += 1;
    }
  }
  if (columnWords < 2) return null;
  const cells: HeaderCell[] = [];
  for (const line of lines) {
    const tokens = lineTokens(line);
    let prefix: Word[] = [];
    const lineCells: HeaderCell[] = [];
    const add = (words: Word[]) => {
      const last = lineCells.at(-1);
      if (last) {
        for (const w of words) if (!last.words.includes(w)) last.words.push(w);
      } else prefix.push(...words.filter((w) => !prefix.includes(w)));
    };
    for (let i = 0; i < tokens.length; ) {
      total += 1;
      const entry = longest(lexicon.header, tokens, i);
      if (!entry) {
        // An unknown part of a word whose later part names a column ("S/PRICE") goes with that column.
        let later = false;
        for (let k = i + 1; k < tokens.length && tokens[k]!.word === tokens[i]!.word && !later; k += 1) later = !!longest(lexicon.header, tokens, k);
        if (!later) add([tokens[i]!.word]);
        i += 1;
        continue;
      }
      const words = [...new Set(tokens.slice(i, i + entry.tokens.length).map((t) => t.word))];
      total += entry.tokens.length - 1;
      known += entry.tokens.length;
      const last = lineCells.at(-1);
      const columnKinds = entry.kinds.filter((k) => k !== 'qualifier');
      const qualifies = entry.kinds.includes('qualifier') && (!columnKinds.length || !!last);
      if (last && (qualifies || last.words.includes(words[0]!))) {
        // A qualifier ("incl. VAT"), or a second column word in the same printed word ("Menge/Einheit"): one cell.
        add(words);
        last.tokens.push(...entry.tokens);
        if (!qualifies) for (const k of columnKinds) if (!last.kinds.includes(k)) last.kinds.push(k);
      } else if (qualifies) {
        prefix.push(...words);
      } else {
        lineCells.push({ kinds: columnKinds, words: [...prefix.filter((w) => !words.includes(w)), ...words], line, tokens: [...entry.tokens], known: true });
        prefix = [];
      }
      i += entry.tokens.length;
    }
    if (prefix.length) {
      // Words of the line before any column word, or a line of unknown words: a column docex does not read.
      if (lineCells[0]) lineCells[0].words.unshift(...prefix);
      else lineCells.push({ kinds: ['other'], words: prefix, line, tokens: [], known: false });
    }
    cells.push(...lineCells);
  }
  if (total === 0 || known / total < 0.66) return null;
  return cells;
}

/** The left and right edges of some words. */
export function span(words: Word[]): { x0: number; x1: number } {
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const w of words) {
    x0 = Math.min(x0, w.bbox.x);
    x1 = Math.max(x1, w.bbox.x + w.bbox.width);
  }
  return { x0, x1 };
}

/** Gives every cell one kind: unambiguous cells first, then each ambiguous one the first of its kinds still free. */
function resolveKinds(cells: HeaderCell[]): ColumnKind[] {
  const claimed = new Set<string>();
  for (const cell of cells) if (cell.kinds.length === 1) claimed.add(cell.kinds[0]!);
  const kinds = cells.map((cell) => {
    const candidates = cell.kinds.filter((k): k is ColumnKind => k !== 'qualifier');
    if (!candidates.length) return 'other';
    if (candidates.length === 1) return candidates[0]!;
    const kind = candidates.find((k) => !claimed.has(k)) ?? candidates[0]!;
    claimed.add(kind);
    return kind;
  });
  // Two price columns and no amount ("Prijs per stuk", "Prijs incl. BTW"): the right one is the line's amount.
  const prices = kinds.flatMap((k, i) => (k === 'unit_price' ? [i] : []));
  if (prices.length >= 2 && !kinds.includes('amount')) kinds[prices.at(-1)!] = 'amount';
  return kinds;
}

export interface Header {
  columns: Column[];
  /** The last row of the header: its row and any header rows stacked under it ("VK-Preis" over "ohne MwSt."). */
  last: number;
}

/** A header row needs a description column and one of quantity, unit price or amount. */
function isTableHeader(kinds: ColumnKind[]): boolean {
  const values = (['quantity', 'unit_price', 'amount'] as const).filter((k) => kinds.includes(k)).length;
  return (kinds.includes('description') && values >= 1) || values >= 2;
}

/** Where a header names no description column ("Qty  Rate  Amount" over descriptions at the left), the room left of its first column is one. */
function withDescription(columns: Column[]): Column[] | null {
  if (columns.some((c) => c.kind === 'description')) return columns;
  const first = columns[0]!;
  if (first.x0 < 0.2) return null;
  return [{ kind: 'description', label: 'Description', x0: 0, x1: 0.9 * first.x0, percent: false }, ...columns];
}

/** Whether a row under a header continues it: column words and qualifiers only, no digits. */
function headerContinuation(lines: Line[]): boolean {
  let known = 0;
  let total = 0;
  for (const line of lines) {
    const tokens = lineTokens(line);
    for (let i = 0; i < tokens.length; ) {
      if (/\d/.test(tokens[i]!.token)) return false;
      const entry = longest(lexicon.header, tokens, i);
      const n = entry?.tokens.length ?? 1;
      total += n;
      if (entry) known += n;
      i += n;
    }
  }
  return total > 0 && known / total >= 0.75;
}

/** The kinds a phrase names: all of it exactly, or else (`loose`) the first column phrase in it. */
function kindsIn(tokens: string[], loose: boolean): EntryKind[] | null {
  const list: Token[] = tokens.map((token) => ({ token, word: null as unknown as Word }));
  for (let i = 0; i < list.length; i += 1) {
    const entry = longest(lexicon.header, list, i);
    if (entry && i === 0 && entry.tokens.length === tokens.length) return entry.kinds;
    if (!loose) return null;
    if (entry?.kinds.some((k) => k !== 'qualifier')) return entry.kinds.filter((k) => k !== 'qualifier');
    if (entry) i += entry.tokens.length - 1;
  }
  return null;
}

/** A header cell's words in reading order, a word broken at a hyphen joined again ("Positions-" over "betrag"). */
function cellText(words: Word[]): string {
  const ordered = [...words].sort((a, b) => a.bbox.y + a.bbox.height / 2 - (b.bbox.y + b.bbox.height / 2) || a.bbox.x - b.bbox.x);
  let text = '';
  for (const w of ordered) text += !text ? w.text : /\p{L}-$/u.test(text) ? w.text : ` ${w.text}`;
  return text;
}

export interface HeaderRow {
  lines: Line[];
  /** Vertical centre and text height, as page fractions. */
  cy: number;
  height: number;
}

/**
 * Whether a row next to a header row belongs to the header: no digits, and either as close as
 * lines of one cell ("Positions-" / "betrag" / "ohne USt.") or made of column words.
 */
function stacked(row: HeaderRow, next: HeaderRow, height: number, cells: HeaderCell[]): boolean {
  const pitch = Math.abs(row.cy - next.cy);
  if (pitch > 1.8 * height) return false;
  if (row.lines.some((l) => /\d/.test(l.text))) return false;
  if (headerContinuation(row.lines)) return true;
  // Other words that close are the second line of a header cell: short, under one column, and not where the first description would be.
  return (
    pitch <= 1.25 * height &&
    row.lines.every((line) => {
      if (line.words.length > 2) return false;
      const under = cells.filter((c) => {
        const s = span(c.words);
        return Math.min(line.bbox.x + line.bbox.width, s.x1) > Math.max(line.bbox.x, s.x0);
      });
      return under.length === 0 || (under.length === 1 && !under[0]!.kinds.includes('description'));
    })
  );
}

/**
 * The item-table header at `rows[at]`, with the header rows stacked over and under it, or null.
 * `rows` are a page's rows, top to bottom.
 */
export function findHeader(rows: HeaderRow[], at: number): Header | null {
  const cells = headerCells(rows[at]!.lines);
  if (!cells) return null;
  if (!isTableHeader(resolveKinds(cells))) return null;
  const height = rows[at]!.height;
  const band: HeaderRow[] = [];
  for (let k = at - 1; k >= Math.max(0, at - 2) && stacked(rows[k]!, rows[k + 1]!, height, cells); k -= 1) band.push(rows[k]!);
  let last = at;
  while (last + 1 < rows.length && last - at < 3 && stacked(rows[last + 1]!, rows[last]!, height, cells)) band.push(rows[(last += 1)]!);
  if (band.length) {
    const grown = new Set<HeaderCell>();
    for (const row of band) {
      for (const line of row.lines) {
        for (const word of line.words) {
          const { x0, x1 } = span([word]);
          let best: HeaderCell | null = null;
          let overlap = 0;
          for (const cell of cells) {
            const s = span(cell.words);
            const o = Math.min(x1, s.x1) - Math.max(x0, s.x0);
            if (o > overlap) [best, overlap] = [cell, o];
          }
          if (best) best.words.push(word);
          else cells.push((best = { kinds: ['other'], words: [word], line, tokens: [], known: false }));
          grown.add(best);
        }
      }
    }
    for (const cell of grown) {
      cell.tokens = foldTokens(cellText(cell.words));
      const kinds = kindsIn(cell.tokens, !cell.known);
      if (kinds?.length) cell.kinds = kinds;
    }
  }
  const kinds = resolveKinds(cells);
  if (!isTableHeader(kinds)) return null;
  const columns = cells
    .map((cell, i) => {
      const { x0, x1 } = span(cell.words);
      return { kind: kinds[i]!, label: cellText(cell.words), x0, x1, percent: cell.tokens.includes('percent') };
    })
    .sort((a, b) => a.x0 - b.x0);
  // Without a description column the header must be nothing but column words: not "TOTAL QTY 1".
  if (!kinds.includes('description') && (rows[at]!.lines.some((l) => /\d/.test(l.text)) || endLabel(rows[at]!.lines[0]!.words))) return null;
  const complete = withDescription(columns);
  return complete && { columns: complete, last };
}
