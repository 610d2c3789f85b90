import { fieldsForLabel, isDocumentTitle } from '../labels.js';
import { findPairs, type LabelTest } from '../layout.js';
import { readValue } from './read-value.js';
import type { Finder } from './types.js';
import { spanOf } from './words.js';

/**
 * A document number printed beside or under the document's title ("Invoice INV/2023/03/0008",
 * "Facture n°562044387", a "Factuur" column header): the document's own number, less sure than
 * one under an invoice-number label.
 */
/**
 * "Handelsrechnung (380) Nr. 471102 vom 05.03.2018", "Tax Invoice No. INV-9": a word naming the
 * document (German compounds such as "Baurechnung" included), a number sign, then the number.
 */
const TITLE_NUMBER = /(?<![\p{L}])(?:\p{L}*rechnung|invoice|facture|factura|fattura|factuur|faktura|fatura|receipt|bill)\b[^\n]{0,12}?(?:nr|no|n°|nº|number|nummer|numéro|número|numero|#)\.?\s*:?\s*([A-Z0-9][A-Z0-9\-/._]{2,39})/iu;

/** The number after a title and a number sign on one row. */
export const numberAfterTitle: Finder = (ctx) => {
  // Where a number label was read already ("Invoice No.: 42"), this would read the same words again.
  const labelled = new Set(ctx.pairs.filter((p) => fieldsForLabel(p.label).some((f) => f.field === 'invoice_number')).map((p) => `${p.page}:${ctx.lineOf(p.valueWords[0]!)?.line.row}`));
  for (const row of ctx.rows) {
    if (labelled.has(`${row.page}:${row.row}`)) continue;
    const match = TITLE_NUMBER.exec(row.text);
    if (!match || !/\d/.test(match[1]!)) continue;
    const number = match[1]!.replace(/[.,;]$/, '');
    const start = match.index + match[0].length - match[1]!.length;
    return [
      {
        field: 'invoice_number',
        value: number,
        score: 0.8,
        ...spanOf({ words: row.lines.flatMap((l) => l.words) }, start, start + number.length),
        explanation: `number after the document title '${match[0].slice(0, match[0].length - match[1]!.length).trim()}' on page ${row.page}`,
        page: row.page,
        row: row.row,
      },
    ];
  }
  return [];
};

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
