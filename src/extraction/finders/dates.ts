import { type DateOrder, type ParsedDate, parseDate } from '../normalise.js';
import { spanOf } from './words.js';
import type { Candidate, Finder } from './types.js';

/** A time of day beside a date: receipts print when the sale was made. */
const TIME = /\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AaPp][Mm])?\b/;

/** OCR drops a date's first separator now and then: "1003/2018" for 10/03/2018. */
const SQUEEZED = /(?<![\d/.-])(\d{2})(\d{2})([/.-])(\d{4})(?!\d)/;

/** A date whose first separator OCR dropped, read as the document writes its dates, marked as doubtful. */
function squeezedDate(text: string, order: DateOrder): ParsedDate | null {
  const m = SQUEEZED.exec(text);
  if (!m) return null;
  const date = parseDate(`${m[1]}${m[3]}${m[2]}${m[3]}${m[4]}`, order);
  return date ? { ...date, matched: m[0], ambiguous: true } : null;
}

/** Tills print the sale's moment without separators now and then: "25032018 13:11:54", "20180325 13:11". */
const COMPACT_TIMED = /(?<!\d)(\d{8})\s+\d{1,2}:\d{2}(?!\d)/;

/** A date written as eight figures with a time of day after it, year last or first. */
function compactDate(text: string, order: DateOrder): ParsedDate | null {
  const m = COMPACT_TIMED.exec(text);
  if (!m) return null;
  const d = m[1]!;
  const spelled = /^(?:19|20)\d{2}/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : `${d.slice(0, 2)}/${d.slice(2, 4)}/${d.slice(4)}`;
  const date = parseDate(spelled, order);
  return date ? { ...date, matched: d, ambiguous: true } : null;
}

/**
 * Dates without a label: every date of the document, the first ones most likely the document's
 * own. A date printed with a time of day is the moment of a sale, as receipts print it.
 */
export const unlabelledDates: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const row of ctx.rows) {
    const text = ctx.mended(row.page, row.text);
    const date = parseDate(text, ctx.order) ?? (ctx.ocr(row.page) ? squeezedDate(text, ctx.order) : null) ?? compactDate(text, ctx.order);
    if (!date) continue;
    const start = text.indexOf(date.matched);
    const timed = TIME.test(text.replace(date.matched, ' '));
    const words = row.lines.flatMap((l) => l.words);
    const first = out.length === 0;
    out.push({
      field: 'invoice_date',
      value: date.value,
      score: (first ? 0.55 : 0.35) * (date.ambiguous ? 0.8 : 1) + (timed ? 0.15 : 0),
      ...spanOf({ words }, start, start + date.matched.length),
      explanation: `${first ? 'first date' : 'date'} on page ${row.page}${timed ? ', printed with a time of day' : ''} (no date label)`,
      page: row.page,
      row: row.row,
    });
    if (out.length >= 5) break;
  }
  return out;
};
