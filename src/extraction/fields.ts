import { CANONICAL_FIELDS, isCanonicalField, matchLabel, normaliseLabel, type LabelMatch } from './labels.js';
import { parseAmount, parseDate, snakeCase, type DateOrder } from './normalise.js';
import { amountRows } from './finders/amount-rows.js';
import { unlabelledAmounts } from './finders/amounts.js';
import { columnSums } from './finders/column-sums.js';
import { contacts, ibans } from './finders/contacts.js';
import { finderContext } from './finders/context.js';
import { unlabelledDates } from './finders/dates.js';
import { headerBlock } from './finders/header-block.js';
import { partyBlocks } from './finders/label-blocks.js';
import { labelledValues, labelExplanation } from './finders/labelled.js';
import { findLineItems, lineItemFields, lineItemSum } from './finders/line-items.js';
import { numberSign } from './finders/number-sign.js';
import { paymentTerms } from './finders/payment-terms.js';
import { readValue } from './finders/read-value.js';
import { numberAfterTitle, numberBesideTitle } from './finders/title-number.js';
import type { Finder, FinderContext } from './finders/types.js';
import { vatIds } from './finders/vat-ids.js';
import { vendorSignals } from './finders/vendor-signals.js';
import { resolve } from './resolve.js';
import { secondReadingOf, weighReadings } from './weigh-readings.js';
import type { DocumentText, FoundField, LabelValue } from './types.js';

/** Every finder proposes candidates on its own; the resolver weighs them together. Adding a finder is adding it here. */
const FINDERS: Finder[] = [labelledValues, amountRows, columnSums, partyBlocks, numberBesideTitle, numberAfterTitle, numberSign, unlabelledDates, paymentTerms, ibans, vatIds, contacts, headerBlock, vendorSignals, unlabelledAmounts];

/**
 * An unknown label earns a field of its own only when it reads like one: a few words without
 * numbers ("Payment terms", not "Page 2, line 1") and a value that is not running prose.
 */
function looksLikeLabel(pair: LabelValue): boolean {
  const letters = normaliseLabel(pair.label).replace(/[^\p{L}]/gu, '').length;
  return letters >= 2 && pair.label.length <= 40 && !/\d/.test(pair.label) && pair.label.split(' ').length <= 4 && pair.value.split(' ').length <= 12;
}

function otherValue(text: string, order: DateOrder): string {
  const raw = text.replace(/\s+/g, ' ').trim();
  const date = parseDate(raw, order);
  if (date && date.matched.length >= raw.length - 1) return date.value;
  if (/^(?:[A-Z]{3}|[^\p{L}\d\s]{1,3})?\s?-?\d[\d.,' ]*[.,]\d{2}\s?(?:[A-Z]{3}|[^\p{L}\d\s]{1,3})?$/u.test(raw)) {
    const amount = parseAmount(raw);
    if (amount) return amount.value;
  }
  return raw;
}

/**
 * The value of a label of no canonical field. A label that is exactly a lexicon phrase for an
 * amount ("Cash", "Service charge") promises one, with its cents: other text beside or under it
 * is another label or a stray line ("GOV TAX" under "SERVICE CHARGE", "MEMBERPOINTS:000" under
 * "CASH"), not its value, and yields null. A label with more words ("Cash sales no") may name
 * something else, and keeps what it labels.
 */
function otherFieldValue(match: LabelMatch | null, pair: LabelValue, ctx: FinderContext): string | null {
  if (!match?.exact || !match.fields.every((f) => f.kind === 'amount')) return otherValue(pair.value, ctx.order);
  const amount = readValue('amount', ctx.mended(pair.page, pair.value), ctx.order);
  return amount?.quality === 1 ? amount.value : null;
}

/**
 * Labelled values under labels of no canonical field ("Payment terms", "Kundennummer", "Discount"),
 * each a field named after its label.
 */
function otherLabelledFields(ctx: FinderContext): FoundField[] {
  const names = new Set<string>(CANONICAL_FIELDS);
  const out: FoundField[] = [];
  for (const pair of ctx.pairs) {
    const match = matchLabel(pair.label);
    if (match?.fields.some((f) => f.kind === 'none' || isCanonicalField(f.field)) || !looksLikeLabel(pair)) continue;
    let name = snakeCase(pair.label);
    if (!name) continue;
    if (names.has(name) && isCanonicalField(name)) name = `${name}_2`;
    if (names.has(name)) continue;
    const value = otherFieldValue(match, pair, ctx);
    if (value === null) continue;
    names.add(name);
    out.push({
      field: name,
      value,
      confidence: Math.round((pair.position === 'right' ? 85 : 80) * (pair.confidence / 100)),
      explanation: labelExplanation(pair),
      page: pair.page,
      bbox: pair.valueBox,
    });
  }
  return out;
}

/**
 * Reads a document's fields: its type, the canonical invoice and receipt fields chosen from
 * every finder's candidates so that they fit together (the line items' sum among them), the line
 * items, and every other labelled value. A page OCR read twice gives its first reading's fields
 * weighed against the second's (./weigh-readings.ts).
 */
export function extractFields(doc: DocumentText): FoundField[] {
  const fields = fieldsOfReading(doc);
  if (!doc.pages.some((p) => p.reread)) return fields;
  return weighReadings(fields, fieldsOfReading({ pages: secondReadingOf(doc.pages) }));
}

/** The fields of one reading of the document's pages. */
function fieldsOfReading(doc: DocumentText): FoundField[] {
  const ctx = finderContext(doc);
  const candidates = FINDERS.flatMap((find) => find(ctx));
  const items = findLineItems(doc);
  const documentType: FoundField = { field: 'document_type', value: ctx.documentType, confidence: ctx.documentType === 'invoice' ? 70 : 80, explanation: `read as ${ctx.documentType.replace('_', ' ')}: ${ctx.documentTypeSays}` };
  const sum = lineItemSum(items);
  const amounts = items.flatMap((item) => (item.cells.amount ? [Number(item.cells.amount.value)] : []));
  return [...resolve(candidates, ctx, sum === null ? null : { sum, amounts }), documentType, ...lineItemFields(items), ...otherLabelledFields(ctx)];
}
