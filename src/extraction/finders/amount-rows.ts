import { matchLabel } from '../labels.js';
import { currencyOf, parseAmount } from '../normalise.js';
import { union } from '../layout.js';
import type { Word } from '../types.js';
import { MONEY } from './amounts.js';
import { meanConfidence } from './words.js';
import type { Candidate, Finder } from './types.js';

/** What may stand between a label and its amount on a receipt row: leader dots, a colon, a currency. */
const FILLER = /[\s.:：=*_\-–]*(?:\(?(?:RM|[A-Z]{3}|[^\p{L}\p{N}\s]{1,2})\)?)?[\s.:：=*_\-–]*$/u;

const TRAILING_SPECKS = /(?:\s+[^\p{L}\s]+)+$/u;

/** The last words of a row, as many as it takes to hold `text`. */
function trailingWords(words: Word[], text: string): Word[] {
  let k = words.length - 1;
  while (k > 0 && !words.slice(k).map((w) => w.text).join(' ').includes(text)) k -= 1;
  return words.slice(k);
}

/**
 * A row that is a label and an amount, however the scan cut it into pieces ("TOTAL (RM) : 42.40",
 * "TOTAL AMT........ RM 60.31"): the row's text before its last amount is read as the label.
 * Receipts print their totals this way, and OCR often splits such a row at the leader dots.
 */
export const amountRows: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const { page, lines, text: read } of ctx.rows) {
    const text = ctx.mended(page, read);
    const last = [...text.matchAll(MONEY)].at(-1);
    if (!last || text.slice(last.index! + last[0].length).trim().length > 2) continue;
    // "TOTAL (RM) :" loses its currency, "TOTAL GST" keeps its GST.
    const label = text.slice(0, last.index!).replace(FILLER, (filler) => (/[A-Z]{3}/.test(filler) && !currencyOf(filler) ? filler.replace(/[\s.:：=*_\-–]+$/u, '') : '')).trim();
    if (!/\p{L}{2}/u.test(label)) continue;
    // "TOTAL ROUNDED 7) 9 0": specks and stray figures OCR read between the label and the amount.
    const match = matchLabel(label) ?? matchLabel(label.replace(TRAILING_SPECKS, ''));
    // "ROUNDING -RM 0.02": the sign stands before the currency.
    const sign = text.slice(0, last.index!).match(/-\s?(?:[A-Z]{2,3}|[^\p{L}\p{N}\s])?\s?$/u)?.[0] ?? '';
    const amount = parseAmount(sign + last[0]);
    if (!match || !amount) continue;
    const words = lines.flatMap((l) => l.words);
    const fields = match.fields.filter((f) => f.kind === 'amount');
    // Mending moves figures right over the spaces it took out ("65. 20", "1 . 3 8"): the reading starts where those spaces do.
    const asRead = read.slice(text.slice(0, last.index!).search(/ *$/), last.index! + last[0].length).trim();
    const mended = asRead !== last[0] ? ` (read as '${asRead}')` : '';
    fields.forEach(({ field }, i) => {
      out.push({
        field,
        value: amount.value,
        amount: Number(amount.value),
        score: (match.exact ? 0.9 : 0.5 + 0.3 * match.coverage) * (i === 0 ? 1 : 0.8),
        textConfidence: meanConfidence(words),
        explanation: `label '${label}' and the amount on one row on page ${page}${match.exact ? '' : ` (label contains '${match.entry}')`}${mended}`,
        page,
        bbox: union(trailingWords(words, asRead).map((w) => w.bbox)),
        row: lines[0]!.row,
      });
    });
  }
  return out;
};
