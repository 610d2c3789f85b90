import { matchLabel } from '../labels.js';
import { spanOf } from './words.js';
import type { Candidate, Finder } from './types.js';

/**
 * A European VAT identification number: a country prefix and eight to twelve figures and letters,
 * perhaps grouped ("FR 604 219 388 61", "NL810433941B01", "DE123456789").
 */
const VAT_ID = /(?<![\p{L}\d])(?:AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|GB|XI|CHE)[ .-]?[0-9A-Z](?:[ .-]?[0-9A-Z]){7,13}(?![\p{L}\d])/gu;
/** Words before the number that are read for its label: "N° de TVA intra communautaire:". */
const LABEL_WORDS = 6;

/** The tax-id label that ends the text before a number, if any ("… Siège social: … N° de TVA intra communautaire:"). */
function labelBefore(text: string): string | null {
  const words = text.replace(/[:：\s]+$/, '').split(/\s+/);
  for (let n = 1; n <= Math.min(LABEL_WORDS, words.length); n += 1) {
    const label = words.slice(-n).join(' ');
    if (matchLabel(label)?.fields.some((f) => f.field === 'vendor_tax_id')) return label;
  }
  return null;
}

/**
 * VAT numbers printed inline after their label, where layout finds no label/value pair: in a
 * footer line ("Free SAS … N° de TVA intra communautaire: FR 604 219 388 61") or with no colon
 * ("BTW NL810433941B01"). The customer's VAT number, in the customer's block, counts less.
 */
export const vatIds: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const located of ctx.lines) {
    const text = located.line.text;
    for (const match of text.matchAll(VAT_ID)) {
      const compact = match[0].replace(/[ .-]/g, '');
      if (compact.replace(/\D/g, '').length < 8) continue;
      const label = labelBefore(text.slice(0, match.index));
      if (!label) continue;
      out.push({
        field: 'vendor_tax_id',
        value: compact,
        score: 0.85 * (ctx.inRecipientBlock(located) ? 0.6 : 1),
        ...spanOf(located.line, match.index!, match.index! + match[0].length),
        explanation: `VAT number after the label '${label}' on page ${located.page}`,
        page: located.page,
        row: located.line.row,
      });
    }
  }
  return out;
};
