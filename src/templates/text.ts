import type { components } from '../../generated/openapi.js';
import type { Box, DocumentText, Line, Word } from '../extraction/types.js';
import { union } from '../extraction/layout.js';
import { median } from '../extraction/median.js';
import { cachedPattern, translateReplacement } from './regex.js';

type TemplateOptions = components['schemas']['TemplateOptions'];

/** Template regexes never see more text than this, so a template's cost is bounded whatever the document. */
export const MAX_TEMPLATE_TEXT = 2_000_000;

interface PlacedWord {
  word: Word;
  /** Offsets in the row's text. */
  start: number;
  end: number;
}

/** One visual row of a page, rendered with its words at their columns. */
export interface TextRow {
  page: number;
  text: string;
  words: PlacedWord[];
}

/** A row inside the prepared text. */
export interface RowSpan {
  row: TextRow;
  /** Offset of the row's first character in `TemplateText.text`. */
  start: number;
  /** Length of the row once prepared. */
  length: number;
  /** Whether preparing left the row as rendered, so word offsets still hold. */
  verbatim: boolean;
}

export interface TemplateText {
  text: string;
  rows: RowSpan[];
}

/**
 * Columns round up only from 0.7 of a character: our character width is the median of the
 * page's words, not pdftotext's own measure, and at an even half a left-aligned block starting
 * a fraction right of the page's leftmost text (a table half a character in) went one column in
 * where pdftotext keeps it at 0, so patterns anchored at `^\w` missed it. Empirical: offsets of
 * 0.53 (to column 0), 0.99 and 3.83 (to 1 and 4) in the corpus settle it between 0.6 and 0.8.
 */
const COLUMN_BIAS = 0.2;

const middle = (w: Word) => w.bbox.y + w.bbox.height / 2;

/**
 * A row's words in bands of text lines, top to bottom, as `pdftotext -layout` prints them: a
 * word whose middle lies below the bottom of the band's first word (by middle) starts a new
 * band. The pipeline's rows can join two text lines beside a taller word (a large "INVOICE"
 * beside a name over an e-mail address), which would interleave their words. Each band keeps
 * the row's lines, cut to the band's words, so columns still render apart.
 */
function bands(row: Line[]): Line[][] {
  const words = row.flatMap((l) => l.words).sort((a, b) => middle(a) - middle(b));
  const bandOf = new Map<Word, number>();
  let top = words[0]!;
  let band = 0;
  for (const word of words) {
    if (middle(word) > top.bbox.y + top.bbox.height) {
      top = word;
      band += 1;
    }
    bandOf.set(word, band);
  }
  if (band === 0) return [row];
  return Array.from({ length: band + 1 }, (_, b) =>
    row.flatMap((line) => {
      const kept = line.words.filter((w) => bandOf.get(w) === b);
      if (kept.length === 0) return [];
      return [{ ...line, words: kept, text: kept.map((w) => w.text).join(' '), bbox: union(kept.map((w) => w.bbox)) }];
    }),
  );
}

/**
 * Renders a page the way `pdftotext -layout` does, which is what invoice2data templates are
 * written against: one text line a visual row; words of one line one space apart; each further
 * line of the row (the pipeline cuts rows at column gaps) at the column its position gives in
 * units of the page's typical character width, at least two spaces on, so columns stay apart.
 */
function renderPage(lines: Line[], page: number): TextRow[] {
  const words = lines.flatMap((l) => l.words);
  if (words.length === 0) return [];
  const charWidth = median(words.map((w) => w.bbox.width / Math.max(1, [...w.text].length))) || 0.01;
  const left = Math.min(...words.map((w) => w.bbox.x));
  const byRow = new Map<number, Line[]>();
  for (const line of lines) byRow.set(line.row, [...(byRow.get(line.row) ?? []), line]);
  return [...byRow.keys()]
    .sort((a, b) => a - b)
    .flatMap((key) => bands(byRow.get(key)!))
    .map((band) => {
      let text = '';
      const placed: PlacedWord[] = [];
      for (const line of band.sort((a, b) => a.bbox.x - b.bbox.x)) {
        const column = Math.round((line.bbox.x - left) / charWidth - COLUMN_BIAS);
        text += ' '.repeat(text ? Math.max(2, column - text.length) : column);
        line.words.forEach((word, i) => {
          if (i > 0) text += ' ';
          placed.push({ word, start: text.length, end: text.length + word.text.length });
          text += word.text;
        });
      }
      return { page, text, words: placed };
    });
}

export function renderRows(doc: DocumentText): TextRow[][] {
  return doc.pages.map((p) => renderPage(p.lines, p.number));
}

/** invoice2data's input preparation, in its order: whitespace, accents, case, then the replacements. */
export function prepare(text: string, options: TemplateOptions): string {
  let out = text;
  if (options.remove_whitespace) out = out.replace(/ +/g, '');
  if (options.remove_accents) out = out.normalize('NFD').replace(/\p{M}/gu, '');
  if (options.lowercase) out = out.toLowerCase();
  for (const [pattern, replacement] of options.replace ?? []) {
    out = out.replace(cachedPattern(pattern!, 'g').regex, translateReplacement(replacement!));
  }
  return out;
}

/** The document as template regexes see it: prepared rows joined by "\n", pages by "\f", capped. */
export function templateText(doc: DocumentText, options: TemplateOptions = {}): TemplateText {
  const rows: RowSpan[] = [];
  let text = '';
  renderRows(doc).forEach((pageRows, index) => {
    if (index > 0) text += '\f';
    pageRows.forEach((row, i) => {
      if (text.length >= MAX_TEMPLATE_TEXT) return;
      if (i > 0) text += '\n';
      const prepared = prepare(row.text, options);
      rows.push({ row, start: text.length, length: prepared.length, verbatim: prepared === row.text });
      text += prepared;
    });
  });
  return { text: text.slice(0, MAX_TEMPLATE_TEXT), rows };
}

/** Where a stretch of the prepared text lies: its page, box and the confidence of its words. */
export interface Location {
  page: number;
  bbox?: Box;
  confidence: number;
}

export function locate(text: TemplateText, start: number, end: number): Location | undefined {
  const spans = text.rows.filter((r) => r.start < Math.max(end, start + 1) && r.start + r.length >= start);
  if (spans.length === 0) return undefined;
  const words = spans.flatMap((span) => {
    if (!span.verbatim) return span.row.words.map((p) => p.word);
    const from = start - span.start;
    const to = end - span.start;
    const hit = span.row.words.filter((p) => p.start < Math.max(to, from + 1) && p.end > from);
    return (hit.length ? hit : span.row.words).map((p) => p.word);
  });
  if (words.length === 0) return { page: spans[0]!.row.page, confidence: 100 };
  const page = spans[0]!.row.page;
  const onPage = spans.filter((s) => s.row.page === page).length === spans.length;
  return {
    page,
    bbox: onPage ? union(words.map((w) => w.bbox)) : undefined,
    confidence: words.reduce((sum, w) => sum + w.confidence, 0) / words.length,
  };
}
