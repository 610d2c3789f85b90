import { foldPhrase } from '../lexicon.js';
import { parseDate } from '../normalise.js';
import { spanOf } from './words.js';
import type { Candidate, Finder } from './types.js';

/** A sentence about paying, then a date it must be paid by: "Zahlbar ... bis 04.07.2018", "Please pay by 3 May 2026". */
const PAYMENT = /\b(?:pay|payable|payment|due|zahlbar|zahlung|fallig|faellig|payer|payable|reglement|paiement|pagar|pago|pagamento|pagare|scadenza|betalen|betaling|platne|platnosci|zaplaty|bayar|bayaran)\b/;
const BY = /\b(?:by|before|until|on or before|bis|bis zum|spatestens|avant le|avant|au plus tard le|le|antes del|hasta el|antes de|entro il|entro|voor|uiterlijk|do|sebelum)\s*$/;

/** Due dates written in payment terms rather than under a label. */
export const paymentTerms: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const located of ctx.lines) {
    const text = located.line.text;
    if (!PAYMENT.test(foldPhrase(text))) continue;
    const date = parseDate(text, ctx.order);
    if (!date) continue;
    const start = text.indexOf(date.matched);
    if (!BY.test(foldPhrase(text.slice(0, start)))) continue;
    out.push({
      field: 'due_date',
      value: date.value,
      score: 0.6,
      ...spanOf(located.line, start, start + date.matched.length),
      explanation: `date to pay by in the payment terms on page ${located.page}`,
      page: located.page,
      row: located.line.row,
    });
  }
  return out;
};
