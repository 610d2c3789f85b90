import { matchLabel } from '../labels.js';
import { union } from '../layout.js';
import { amountsAgree } from '../normalise.js';
import type { Box, Word } from '../types.js';
import { labelStrength } from './labelled.js';
import { readValue } from './read-value.js';
import { meanConfidence } from './words.js';
import type { Candidate, Finder } from './types.js';

/** Fields a tax summary prints per rate, one row each, and then summed. */
const SUMMED = new Set(['subtotal', 'tax_amount', 'total_amount']);
/** Rows of a tax summary read down a column at most: one per tax rate, and the sum. */
const MAX_ROWS = 8;
/** A gap of this many text heights ends the column. */
const MAX_GAP = 4;

/** The words of a column: those whose middle lies across the value's box. */
function inColumn(word: Word, box: Box): boolean {
  const middle = word.bbox.x + word.bbox.width / 2;
  return middle >= box.x - box.width / 2 && middle <= box.x + box.width * 1.5;
}

/**
 * A tax summary with a row per rate and a row of sums ("Nettobetrag 321,40 / 127,59 / 448,99"):
 * under a subtotal, tax or total label the first amount is one rate's, and the amount further
 * down the column that equals the sum of those above it is the document's.
 */
export const columnSums: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const pair of ctx.pairs) {
    if (pair.position !== 'below') continue;
    const match = matchLabel(pair.label);
    const field = match?.fields.find((f) => SUMMED.has(f.field))?.field;
    const first = field ? readValue('amount', pair.value, ctx.order) : null;
    const page = ctx.doc.pages.find((p) => p.number === pair.page);
    // Money is printed with its cents here; whole numbers in a column ("Total Points 2264 / 43 / 2307") are counts.
    if (!match || !field || !first || first.quality < 1 || !page) continue;
    const box = pair.valueBox;
    const rows: { amount: number; value: string; words: Word[] }[] = [{ amount: Number(first.value), value: first.value, words: pair.valueWords }];
    let bottom = box.y + box.height;
    for (const line of page.lines) {
      if (rows.length > MAX_ROWS || line.bbox.y < bottom - box.height / 2) continue;
      const words = line.words.filter((w) => inColumn(w, box));
      if (!words.length) continue;
      if (line.bbox.y - bottom > MAX_GAP * box.height) break;
      const read = readValue('amount', words.map((w) => w.text).join(' '), ctx.order);
      if (!read || read.quality < 1) break;
      rows.push({ amount: Number(read.value), value: read.value, words });
      bottom = line.bbox.y + line.bbox.height;
    }
    for (let k = 2; k < rows.length; k += 1) {
      const above = rows.slice(0, k).reduce((sum, r) => sum + r.amount, 0);
      if (!amountsAgree(above, rows[k]!.amount)) continue;
      out.push({
        field,
        value: rows[k]!.value,
        amount: rows[k]!.amount,
        score: labelStrength(match) + 0.03,
        textConfidence: meanConfidence(rows[k]!.words),
        explanation: `label '${pair.label}' on page ${pair.page}, the sum of the ${k} amounts under it`,
        page: pair.page,
        bbox: union(rows[k]!.words.map((w) => w.bbox)),
      });
      break;
    }
  }
  return out;
};
