import { matchLabel, type LabelMatch } from '../labels.js';
import { parseDate } from '../normalise.js';
import type { LabelValue } from '../types.js';
import { readValue } from './read-value.js';
import type { Candidate, Finder } from './types.js';

/** Contact and tax details under the customer's label are the customer's, not the vendor's. */
const VENDOR_DETAILS = new Set(['vendor_tax_id', 'email', 'phone', 'iban']);

/**
 * How strongly a label points to its field: a lexicon phrase most, one naming a reference the
 * document carries ("Booking ID" beside "Invoice No") less, one contained among other words less
 * still, the less of it the phrase covers.
 */
export function labelStrength(match: LabelMatch): number {
  if (!match.exact) return 0.55 + 0.3 * match.coverage;
  return match.secondary ? 0.85 : 0.95;
}

export function labelExplanation(pair: LabelValue, note?: string): string {
  const where = pair.position === 'right' ? 'value to the right' : 'value below';
  return `label '${pair.label}' on page ${pair.page}, ${where}${note ? ` (${note})` : ''}`;
}

/**
 * Values beside or under their labels. A label that is a lexicon phrase counts most; one that
 * contains a phrase among other words ("Total (RM)", "Rechnungsbetrag inkl. MwSt") less, the
 * less of it the phrase covers. A label may stand for several fields ("VAT": the tax or the VAT
 * number); the first whose value reads is taken.
 */
export const labelledValues: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const pair of ctx.pairs) {
    const match = matchLabel(pair.label);
    if (!match) continue;
    for (const { field, kind } of match.fields) {
      const read = readValue(kind, kind === 'amount' || kind === 'date' ? ctx.mended(pair.page, pair.value) : pair.value, ctx.order);
      if (!read) continue;
      const strength = labelStrength(match);
      // The first line under a party's label is often a customer number or a remark: `partyBlocks` reads the whole block.
      const below = pair.position === 'right' ? 1 : kind === 'name' ? 0.85 : 0.95;
      const line = ctx.lineOf(pair.valueWords[0]!);
      const customers = VENDOR_DETAILS.has(field) && line && ctx.inRecipientBlock(line) ? 0.6 : 1;
      out.push({
        field,
        value: read.value,
        score: strength * below * read.quality * customers,
        textConfidence: pair.confidence,
        explanation: labelExplanation(pair, [read.note, match.exact ? '' : `label contains '${match.entry}'`].filter(Boolean).join('; ') || undefined),
        page: pair.page,
        bbox: pair.valueBox,
        row: line?.line.row,
        ...(kind === 'amount' ? { amount: Number(read.value) } : {}),
      });
      // "Rechnung Nr. 471102 vom 05.03.2018", "Invoice No. 12 dated 3 May 2026": the number's own date.
      const dated = field === 'invoice_number' ? parseDate(pair.value.slice(pair.value.indexOf(read.value) + read.value.length), ctx.order) : null;
      if (dated) {
        out.push({ field: 'invoice_date', value: dated.value, score: 0.85 * strength, textConfidence: pair.confidence, explanation: `date after the invoice number on page ${pair.page} (label '${pair.label}')`, page: pair.page, bbox: pair.valueBox, row: line?.line.row });
      }
      break;
    }
  }
  return out;
};
