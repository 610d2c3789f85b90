import { isDocumentTitle } from '../labels.js';
import { findPairs, type LabelTest } from '../layout.js';
import { readValue } from './read-value.js';
import type { Finder } from './types.js';

/**
 * A document number printed beside or under the document's title ("Invoice INV/2023/03/0008",
 * "Facture n°562044387", a "Factuur" column header): the document's own number, less sure than
 * one under an invoice-number label.
 */
export const numberBesideTitle: Finder = (ctx) => {
  const titleOrLabel: LabelTest = (phrase) => isDocumentTitle(phrase) || ctx.isLabel(phrase);
  for (const pair of ctx.doc.pages.flatMap((page) => findPairs(page, titleOrLabel))) {
    if (!isDocumentTitle(pair.label)) continue;
    const read = readValue('id', pair.value, ctx.order);
    if (!read) continue;
    return [
      {
        field: 'invoice_number',
        value: read.value,
        score: pair.position === 'right' ? 0.75 : 0.7,
        textConfidence: pair.confidence,
        explanation: `number ${pair.position === 'right' ? 'beside' : 'below'} the document title '${pair.label}' on page ${pair.page} (no number label)`,
        page: pair.page,
        bbox: pair.valueBox,
      },
    ];
  }
  return [];
};
