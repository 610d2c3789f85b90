import { CANONICAL_FIELDS } from '../labels.js';
import { currencyOf, parseAmount, parseDate } from '../normalise.js';
import type { DocumentText, FoundField } from '../types.js';
import type { EInvoiceReading } from './read.js';
import type { XmlValue } from './values.js';

/** A value of the attachment that the page contradicts: the auto-approval threshold (90) must not pass it. */
const DISAGREEING = 40;

const CANONICAL = new Set<string>(CANONICAL_FIELDS);
const AMOUNTS = new Set(['subtotal', 'tax_amount', 'total_amount']);
const DATES = new Set(['invoice_date', 'due_date']);
const NAMES = new Set(['vendor_name', 'vendor_address', 'customer_name']);

/** Lower case, accents folded, only letters and digits: "Lieferantenstraße 20," -> "lieferantenstrasse20". */
function compact(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss').replace(/[^\p{L}\p{N}@]+/gu, '');
}

/** What the page's text holds, worked out once per document and only for the kinds asked. */
class PageContent {
  private readonly lines: string[];
  private amounts?: Set<string>;
  private dates?: Set<string>;
  private folded?: string;

  constructor(doc: DocumentText) {
    this.lines = doc.pages.flatMap((p) => p.lines.map((l) => l.text));
  }

  /** Every amount on the page, without its sign (a credit note may print its amounts unsigned). */
  private allAmounts(): Set<string> {
    if (this.amounts) return this.amounts;
    this.amounts = new Set();
    for (const line of this.lines) {
      // From every number's start, so that each amount of a row ("20,00 9,90 198,00") is read.
      for (const m of line.matchAll(/(?<![\d.,'])\d/g)) {
        const amount = parseAmount(line.slice(m.index));
        if (amount) this.amounts.add(amount.value.replace(/^-/, ''));
      }
    }
    return this.amounts;
  }

  private allDates(): Set<string> {
    if (this.dates) return this.dates;
    this.dates = new Set();
    for (const line of this.lines) {
      for (const m of line.matchAll(/(?<![\p{L}\d])[\p{L}\d]/gu)) {
        const date = parseDate(line.slice(m.index));
        if (date) this.dates.add(date.value);
      }
    }
    return this.dates;
  }

  has(field: string, value: string): boolean {
    if (AMOUNTS.has(field)) return this.allAmounts().has(value.replace(/^-/, ''));
    if (DATES.has(field)) return this.allDates().has(value);
    if (field === 'currency') return this.lines.some((l) => l.includes(value) || currencyOf(l) === value);
    this.folded ??= compact(this.lines.join(' '));
    // An address's parts may be printed on lines of their own, with a country code before the postcode.
    const parts = field.endsWith('_address') ? value.split(', ') : [value];
    return parts.every((part) => this.folded!.includes(compact(part)));
  }
}

/** Whether the page's reading of a field says the same as the attachment. */
function agrees(field: string, xml: string, page: string): boolean {
  if (AMOUNTS.has(field)) return Number(xml) === Number(page) || Math.abs(Number(xml)) === Math.abs(Number(page));
  if (NAMES.has(field)) return compact(page).includes(compact(xml)) || compact(xml).includes(compact(page));
  return compact(xml) === compact(page);
}

/** One value of the attachment as a field, checked against the page's reading of the same field. */
function checked(v: XmlValue, source: string, page: FoundField | undefined, text: PageContent): FoundField {
  const explanation = `${source}, ${v.term}${v.note ? ` (${v.note})` : ''}`;
  const confidence = v.confidence ?? 100;
  if (!CANONICAL.has(v.field) || !page) return { field: v.field, value: v.value, confidence, explanation };
  if (agrees(v.field, v.value, page.value)) {
    const where = page.page !== undefined ? `; also on page ${page.page}` : '';
    return { field: v.field, value: v.value, confidence, explanation: `${explanation}${where}`, ...(page.page !== undefined ? { page: page.page } : {}), ...(page.bbox ? { bbox: page.bbox } : {}) };
  }
  if (text.has(v.field, v.value)) return { field: v.field, value: v.value, confidence, explanation: `${explanation}; also on the page` };
  const said = page.explanation.split(';')[0];
  return {
    field: v.field,
    value: v.value,
    confidence: Math.min(confidence, DISAGREEING),
    explanation: `${explanation}; the attachment and the page disagree: the attachment says ${v.value}, the page says ${page.value} (${said}), and ${v.value} is not on the page`,
  };
}

const rank = (field: string) => {
  const canonical = CANONICAL_FIELDS.indexOf(field as (typeof CANONICAL_FIELDS)[number]);
  if (canonical >= 0) return canonical;
  if (field === 'document_type') return 100;
  if (field.startsWith('line_items.')) return 300;
  if (field.startsWith('tax_lines.')) return 400;
  return 200;
};

/**
 * The fields of a PDF whose invoice attachment was read: the attachment's values (confidence 100,
 * the element named; lowered, with both values said, where the page shows another value and not
 * this one), then the page's fields for what the attachment does not hold. The attachment's line
 * items replace the page's, rows are never mixed.
 */
export function answerWithEInvoice(generic: FoundField[], reading: EInvoiceReading, doc: DocumentText): FoundField[] {
  const text = new PageContent(doc);
  const byName = new Map<string, FoundField>();
  for (const f of generic) if (!byName.has(f.field)) byName.set(f.field, f);
  const xml = reading.values.map((v, i) => ({ field: checked(v, reading.source, byName.get(v.field), text), i }));
  xml.sort((a, b) => rank(a.field.field) - rank(b.field.field) || a.i - b.i);
  const names = new Set(reading.values.map((v) => v.field));
  const tables = ['line_items.', 'tax_lines.'].filter((prefix) => reading.values.some((v) => v.field.startsWith(prefix)));
  const rejected = new Map(reading.rejected.map((r) => [r.field, r]));
  const rest = generic
    .filter((f) => !names.has(f.field) && !tables.some((prefix) => f.field.startsWith(prefix)))
    .map((f) => {
      const r = rejected.get(f.field);
      return r ? { ...f, explanation: `${f.explanation}; the attachment's ${r.term} '${r.raw}' ${r.why}, so the page's value is given` } : f;
    });
  return [...xml.map((x) => x.field), ...rest];
}
