import { CANONICAL_FIELDS } from './labels.js';
import { currencyOf } from './normalise.js';
import type { Candidate, FinderContext } from './finders/types.js';
import { oneFigureApart, resolveAmounts, type Chosen, type ItemAmounts } from './resolve-amounts.js';
import type { FoundField } from './types.js';
import { keyOf, sameCompany } from './vendor.js';

const AMOUNT_FIELDS = new Set<string>(['total_amount', 'subtotal', 'tax_amount']);

/** Four decimals are a tenth of a pixel on a 300-dpi page; more is noise in the API. */
function tidy(field: FoundField): FoundField {
  if (!field.bbox) return field;
  const r = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 10_000) / 10_000;
  const b = field.bbox;
  return { ...field, bbox: { x: r(b.x), y: r(b.y), width: r(b.width), height: r(b.height) } };
}

/** A chosen candidate as a field: confidence from its evidence, its support and the text under it. */
export function toField({ candidate: c, support, notes }: Chosen, name: string = c.field): FoundField {
  const evidence = Math.max(0, Math.min(0.99, c.score + support));
  const explanation = [c.explanation, ...notes].join('; ');
  return tidy({
    field: name,
    value: c.value,
    confidence: Math.round(100 * evidence * (c.textConfidence / 100)),
    explanation,
    ...(c.page !== undefined ? { page: c.page } : {}),
    ...(c.bbox ? { bbox: c.bbox } : {}),
  });
}

/** How much less sure a receipt's address is under another name than the vendor's. */
const SHOP_ADDRESS_DOUBT = 0.2;

/**
 * A receipt's address at its head, where the vendor's name came from elsewhere ("Owned by Dommal
 * Food Services Sdn Bhd" under the shop's "DOMINO'S PIZZA" and its address): a receipt is printed
 * where it was paid, so the address it starts with is the seller's. Less sure than an address
 * under the vendor's own name.
 */
function shopAddress(addresses: Chosen[], ctx: FinderContext): Chosen | undefined {
  const head = ctx.documentType === 'receipt' ? addresses.find((a) => a.candidate.belongsTo) : undefined;
  return head && { ...head, support: head.support - SHOP_ADDRESS_DOUBT, notes: [...head.notes, `under '${head.candidate.belongsTo}', not the vendor's name`] };
}

/** Candidates of one field, best first; agreement between finders on a value adds support. */
function ranked(list: Candidate[]): Chosen[] {
  const byValue = new Map<string, Chosen>();
  for (const c of [...list].sort((a, b) => b.score - a.score)) {
    const key = c.field === 'vendor_name' ? keyOf(c.value) : c.value.toLowerCase();
    const seen = byValue.get(key);
    if (!seen) byValue.set(key, { candidate: c, support: 0, notes: [] });
    else if (seen.support < 0.1) {
      seen.support += 0.05;
      seen.notes.push(`also ${c.explanation.split(' (')[0]}`);
    }
  }
  return [...byValue.values()].sort((a, b) => b.candidate.score + b.support - (a.candidate.score + a.support));
}

/**
 * Chooses one value per field from every finder's candidates so that they fit together: amounts
 * that add up (see `resolveAmounts`), a due date not before the invoice date, a vendor other than
 * the customer and the vendor's own address.
 */
export function resolve(candidates: Candidate[], ctx: FinderContext, items: ItemAmounts | null): FoundField[] {
  const groups = new Map<string, Candidate[]>();
  for (const c of candidates) groups.set(c.field, [...(groups.get(c.field) ?? []), c]);
  const of = (field: string) => groups.get(field) ?? [];
  const chosen = resolveAmounts(of, items, ctx);

  // The customer first, so that the vendor can be told apart from it.
  const order = ['customer_name', ...CANONICAL_FIELDS.filter((f) => f !== 'customer_name')];
  for (const field of order) {
    if (AMOUNT_FIELDS.has(field) || field === 'currency' || field === 'vendor_address') continue;
    let options = ranked(of(field));
    if (field === 'due_date') {
      const issued = chosen.get('invoice_date')?.candidate.value;
      if (issued) options = options.filter((o) => o.candidate.value >= issued);
    }
    if (field === 'invoice_date') {
      const due = ranked(of('due_date'))[0]?.candidate.value;
      options = options.filter((o) => o.candidate.value !== due || o.candidate.explanation.startsWith('label'));
    }
    if (field === 'invoice_date') options = surerReadingFirst(options, ctx);
    if (field === 'vendor_name') {
      const customer = chosen.get('customer_name');
      if (customer) options = options.filter((o) => keyOf(o.candidate.value) !== keyOf(customer.candidate.value));
    }
    if (options[0]) chosen.set(field, options[0]);
  }

  const vendor = chosen.get('vendor_name');
  const addresses = ranked(of('vendor_address'));
  const address = addresses.find((a) => vendor && a.candidate.belongsTo && sameCompany(a.candidate.belongsTo, vendor.candidate.value)) ?? shopAddress(addresses, ctx);
  if (address) chosen.set('vendor_address', address);

  const currency = currencyFor(chosen, of('currency'), ctx);
  if (currency) chosen.set('currency', currency);
  return CANONICAL_FIELDS.flatMap((field) => {
    const c = chosen.get(field);
    return c ? [toField(c, field)] : [];
  });
}

/** OCR confidence a date's reading must have above another's to be taken for the same date misread. */
const SURER_DATE = 20;

/**
 * "Date 18/03/2017" read at 47 and "Print Date 13/03/2017" at 81 on one scanned receipt: two dates
 * one figure apart are one date, one of them misread, and the surer reading is taken.
 */
function surerReadingFirst(options: Chosen[], ctx: FinderContext): Chosen[] {
  const [top] = options;
  if (!top || top.candidate.page === undefined || !ctx.ocr(top.candidate.page)) return options;
  const surer = options.find((o) => oneFigureApart(o.candidate.value, top.candidate.value) && o.candidate.textConfidence > top.candidate.textConfidence + SURER_DATE);
  if (!surer) return options;
  const note = `read more surely than ${top.candidate.value}, one figure apart (${top.candidate.explanation.split(';')[0]})`;
  return [{ ...surer, support: Math.max(surer.support, top.candidate.score + top.support - surer.candidate.score), notes: [...surer.notes, note] }, ...options.filter((o) => o !== surer)];
}

/** An amount printed with cents. */
const WITH_CENTS = /\d[.,]\d{2}(?!\d)/;

/**
 * Tesseract's English model has no rupee sign and reads '₹' as '¥'. Yen have no cents, so a yen
 * read by OCR at an amount with cents is taken for no currency: the one the document names
 * elsewhere ("Rs -40.00") decides.
 */
const misreadYen = (code: string | null, printed: string, page: number | undefined, ctx: FinderContext) =>
  code === 'JPY' && page !== undefined && ctx.ocr(page) && WITH_CENTS.test(printed);

/** The currency labelled as such, else the one written with the total (or another amount), else the one the document names most often. */
function currencyFor(chosen: Map<string, Chosen>, labelled: Candidate[], ctx: FinderContext): Chosen | null {
  const best = ranked(labelled)[0];
  if (best) return best;
  let yenMisread = false;
  for (const field of ['total_amount', 'subtotal', 'tax_amount']) {
    const amount = chosen.get(field)?.candidate;
    if (!amount) continue;
    const pair = ctx.pairs.find((p) => p.page === amount.page && p.valueBox === amount.bbox);
    const line = pair ? undefined : ctx.lines.find((l) => l.page === amount.page && l.line.row === amount.row);
    const printed = pair?.value ?? line?.line.text ?? '';
    const code = currencyOf(printed);
    if (misreadYen(code, printed, amount.page, ctx)) {
      yenMisread = true;
      continue;
    }
    if (code) {
      return {
        candidate: { field: 'currency', value: code, score: 0.9, textConfidence: pair?.confidence ?? line?.line.confidence ?? 100, explanation: `currency written with the ${field.replace('_', ' ')} on page ${amount.page}`, page: amount.page, bbox: amount.bbox },
        support: 0,
        notes: [],
      };
    }
  }
  const counts = new Map<string, number>();
  for (const line of ctx.text.replace(/\t/g, ' ').split(/[\n\f]/)) {
    // Only a currency written at an amount with cents: "PEN BLUE" on a receipt is a pen, not
    // Peruvian soles, and "$000022185" a registration number OCR began with a dollar sign.
    const code = WITH_CENTS.test(line) ? currencyOf(line) : null;
    const atAmount = code && (!line.includes(code) || new RegExp(`${code}\\s?-?\\d|\\d\\s?${code}`).test(line));
    if (code && atAmount && !(yenMisread && code === 'JPY')) counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  const [code, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (!code || !count) return null;
  return {
    candidate: { field: 'currency', value: code, score: counts.size === 1 ? 0.75 : 0.55, textConfidence: 100, explanation: `currency named on ${count} line${count === 1 ? '' : 's'} of the document (no currency next to the total)` },
    support: 0,
    notes: [],
  };
}

