import { parseAmount, parseDate } from '../normalise.js';
import { spanOf } from './words.js';
import type { Candidate, Finder } from './types.js';

/**
 * An amount with cents, as totals are printed: "60.30", "1.234,50", "RM 12.00". Not grouped by
 * plain spaces: on a receipt row "2 327.00" is a quantity and an amount.
 */
export const MONEY = /(?<![\d.,])-?(?:\d{1,3}(?:[.,'\u00a0\u202f]\d{3})+|\d+)[.,]\d{2}(?![\d.,]*\d)(?!\s?%)/g;

/**
 * Every amount with cents printed on its own, at the end of a line (where totals stand), without
 * a label: a total the labels missed can still be recognised by the arithmetic around it
 * (cash tendered minus change, subtotal plus tax).
 */
export const unlabelledAmounts: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const located of ctx.lines) {
    const text = ctx.mended(located.page, located.line.text);
    if (parseDate(text)) continue;
    const matches = [...text.matchAll(MONEY)];
    const last = matches.at(-1);
    if (!last || text.slice(last.index! + last[0].length).replace(/[\s*]/g, '').length > 3) continue;
    const amount = parseAmount(last[0]);
    if (!amount) continue;
    out.push({
      field: 'amount',
      value: amount.value,
      amount: Number(amount.value),
      score: 0.2,
      ...spanOf(located.line, last.index!, last.index! + last[0].length),
      explanation: `amount at the end of a line on page ${located.page}`,
      page: located.page,
      row: located.line.row,
    });
  }
  return out;
};
