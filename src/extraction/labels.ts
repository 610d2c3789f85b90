import { readFileSync } from 'node:fs';
import { hasLegalForm, withoutLegalForm } from './legal-forms.js';
import { foldPhrase, loadLexicon, lexiconDir, type PhraseMatch } from './lexicon.js';
import { withoutCurrencyCodes } from './normalise.js';
/** The canonical invoice and receipt fields and the label phrases (in several languages) that introduce them. */

export const CANONICAL_FIELDS = [
  'invoice_number',
  'invoice_date',
  'due_date',
  'vendor_name',
  'vendor_address',
  'customer_name',
  'subtotal',
  'tax_amount',
  'total_amount',
  'currency',
  'purchase_order',
  'vendor_tax_id',
  'iban',
  'email',
  'phone',
] as const;

export type CanonicalField = (typeof CANONICAL_FIELDS)[number];

export const isCanonicalField = (field: string): field is CanonicalField => (CANONICAL_FIELDS as readonly string[]).includes(field);

/** How a field's value is read and normalised; `none` for labels whose value is never read (a tax rate, an item count). */
export type ValueKind = 'id' | 'date' | 'name' | 'amount' | 'currency' | 'tax_id' | 'iban' | 'email' | 'phone' | 'none';

/** Amounts and dates a receipt or invoice labels besides the canonical fields; the resolver weighs them (cash tendered, change, rounding). */
export const AUXILIARY_FIELDS = ['amount_tendered', 'change_due', 'rounding', 'discount', 'prepaid', 'surcharge', 'service_charge', 'line_total', 'other_date', 'item_count', 'tax_rate', 'ship_to', 'card_number'] as const;
export type AuxiliaryField = (typeof AUXILIARY_FIELDS)[number];
export type LabelledField = CanonicalField | AuxiliaryField;

const KINDS: Record<LabelledField, ValueKind> = {
  invoice_number: 'id',
  invoice_date: 'date',
  due_date: 'date',
  vendor_name: 'name',
  vendor_address: 'none',
  customer_name: 'name',
  subtotal: 'amount',
  tax_amount: 'amount',
  total_amount: 'amount',
  currency: 'currency',
  purchase_order: 'id',
  vendor_tax_id: 'tax_id',
  iban: 'iban',
  email: 'email',
  phone: 'phone',
  amount_tendered: 'amount',
  change_due: 'amount',
  rounding: 'amount',
  discount: 'amount',
  prepaid: 'amount',
  surcharge: 'amount',
  service_charge: 'amount',
  line_total: 'amount',
  other_date: 'date',
  item_count: 'none',
  tax_rate: 'none',
  ship_to: 'none',
  // "Card No 14": the digits of a payment card or a loyalty card, never an amount paid by card.
  card_number: 'id',
};

/** Kinds whose label may carry extra words around a lexicon phrase ("Rechnungsbetrag inkl. 19% MwSt"): their values are checked by shape, a name's are not. */
const LOOSE_KINDS = new Set<ValueKind>(['amount', 'date', 'id', 'none']);
/** A longer phrase is a sentence, not a label. */
const LOOSE_MAX_WORDS = 6;

/**
 * Words that name the document itself ("Invoice", "Rechnung", "Kopie factuur"): a heading, so
 * never a name; a number printed beside one is the document's own.
 */
const DOCUMENT_TITLE =
  /^(?:(?:simplified |official |full )?(?:tax|commercial|proforma|pro forma|payment|sales|cash|copy|kopie|copie|duplicate|original)\s)?(?:invoice|receipt|rechnung|facture|factura|fattura|factuur|faktura|bill|quote|quotation|estimate|statement|credit note|gutschrift|devis|angebot|lieferschein|delivery note|quittung|kassenbon)s?\b/iu;

/** Whether `text` starts with a document title, such as "Invoice" or "PAYMENT RECEIPT". */
export function startsWithTitle(text: string): boolean {
  return DOCUMENT_TITLE.test(text.trim());
}

/** Whether `phrase` is a document title and nothing else ("FACTUUR.", "Tax Invoice"). */
export function isDocumentTitle(phrase: string): boolean {
  const bare = phrase.trim().replace(/[.:：]+$/, '');
  const match = bare.match(DOCUMENT_TITLE);
  return !!match && match[0].length === bare.length;
}

/** `text` without a document title at its end: "Amazon Web Services Invoice" is a name, then the title. */
export function withoutTrailingTitle(text: string): string {
  const words = text.trim().split(/\s+/);
  for (let k = 1; k < words.length; k += 1) if (isDocumentTitle(words.slice(k).join(' '))) return words.slice(0, k).join(' ');
  return words.join(' ');
}

const modifiers = JSON.parse(readFileSync(`${lexiconDir('.')}/label-modifiers.json`, 'utf8')) as Record<'excluding' | 'including' | 'secondary' | 'base', string[]>;

/** A preposition that makes the amount after it the base a rate is taken of ("on $ 112.90", "auf 100,00"). */
const BASE_WORD = `(?:${modifiers.base.join('|')})`;
/** An amount printed with its cents, with a currency sign before or after it. */
const BASE_AMOUNT = String.raw`[^\p{L}\d\s]{0,3}\s?\d{1,3}(?:[.,' ]?\d{3})*[.,]\d{2}(?![.,]?\d)\s?[^\p{L}\d\s]{0,3}`;
/** "Tax 15% on $ 112.90" (Odoo's tax line): the rate and the base it is taken of, which name no amount of their own. */
const RATE_AND_BASE = new RegExp(String.raw`%\s*${BASE_WORD}\s+${BASE_AMOUNT}`, 'giu');
const BASE_VALUE = new RegExp(String.raw`^${BASE_WORD}\s+${BASE_AMOUNT}`, 'iu');

/** Whether a value is the base of a rate ("on $ 112.90" beside "Tax 15%"), not the amount its label names. */
export function isRateBase(value: string): boolean {
  return BASE_VALUE.test(value.trim());
}

/** Reduces a printed label to the form the patterns above are written against. */
export function normaliseLabel(label: string): string {
  return withoutCurrencyCodes(label)
    .replace(RATE_AND_BASE, '% ')
    .toLowerCase()
    .replace(/\(?\s*\d+(?:[.,]\d+)?\s*%\s*\)?/g, ' ')
    .replace(/%/g, ' percent ')
    .replace(/#/g, ' no ')
    .replace(/\bn\s?[°º]/g, 'no ')
    .replace(/[.\-_'’]/g, '')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/(?<!\p{L})(?:nr|number|num|nummer|numéro|numero|número|núm)(?!\p{L})/gu, 'no')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface LabelMatch {
  /** Fields the label may introduce, in the order their value should be tried. */
  fields: readonly { field: LabelledField; kind: ValueKind }[];
  /** The label is a lexicon phrase, not a phrase containing one. */
  exact: boolean;
  /** The lexicon phrase found, folded. */
  entry: string;
  /** 0-1: the share of the label's words the lexicon phrase covers. */
  coverage: number;
  /** The phrase names a reference the document carries ("Booking ID", "Ref No"), which its own number ("Invoice No") outranks. */
  secondary: boolean;
}

const lexicon = loadLexicon(lexiconDir('labels'), normaliseLabel);

const anyOf = (phrases: string[]) => new RegExp(`(?:^| )(?:${phrases.map((p) => foldPhrase(p)).join('|')})(?: |$)`);
const EXCLUDING = anyOf(modifiers.excluding);
const INCLUDING = anyOf(modifiers.including);
const SECONDARY = new Set(modifiers.secondary.map((p) => foldPhrase(normaliseLabel(p))));

/**
 * "Total Sales (Excluding GST)", "Summe ohne MwSt": a total named as before tax is the subtotal,
 * whichever total phrase the label also contains.
 */
function beforeTax(label: string, fields: LabelMatch['fields']): LabelMatch['fields'] {
  if (fields[0]?.field !== 'total_amount') return fields;
  const folded = foldPhrase(normaliseLabel(label));
  if (!EXCLUDING.test(folded) || INCLUDING.test(folded)) return fields;
  return [{ field: 'subtotal', kind: 'amount' }, ...fields.filter((f) => f.field !== 'subtotal')];
}

/** Kinds whose values are checked by their shape, so that a label naming one inside a compound says enough. */
const SHAPED_KINDS = new Set<ValueKind>(['iban', 'tax_id', 'email', 'phone']);

/**
 * "Verkäufer-IBAN", "Seller-E-Mail": a compound that is no label itself names what its last part
 * does, for values of a checked shape; a buyer's ("Käufer-IBAN") is not taken for the seller's.
 */
function compoundHead(label: string): PhraseMatch | null {
  const parts = label.trim().split(/(?<=\p{L})[-‐](?=\p{L})/u);
  for (let at = 1; at < parts.length; at += 1) {
    const head = lexicon.match(parts.slice(at).join('-'));
    if (!head?.exact || !head.fields.every((f) => SHAPED_KINDS.has(KINDS[f as LabelledField] ?? 'none'))) continue;
    return lexicon.match(parts.slice(0, at).join(' '))?.fields.includes('customer_name') ? null : head;
  }
  return null;
}

/** Answers by printed label: a document repeats its labels on every page, and layout asks about each phrase. */
const known = new Map<string, LabelMatch | null>();
const KNOWN_MAX = 10_000;

/**
 * What a printed label introduces: the lexicon phrase it is, or else the longest one it contains
 * with other words around it ("Total (RM)", "Gesamtbetrag EUR", "Rechnungsbetrag inkl. MwSt"),
 * for fields whose values are checked by shape. Null for a phrase that is no label.
 */
export function matchLabel(label: string): LabelMatch | null {
  if (known.has(label)) return known.get(label)!;
  const found = lexicon.match(label) ?? compoundHead(label);
  let match: LabelMatch | null = null;
  if (found) {
    const fields = found.fields.map((field) => ({ field: field as LabelledField, kind: KINDS[field as LabelledField] ?? 'none' }));
    // "Zeal Cash & Carry Sdn. Bhd." holds the phrase "cash" but is a company's name, not a label; "Total Inc." is a label.
    const company = hasLegalForm(label) && !matchLabel(withoutLegalForm(label))?.exact;
    const loose = !found.exact && (fields.some((f) => !LOOSE_KINDS.has(f.kind)) || normaliseLabel(label).split(' ').length > LOOSE_MAX_WORDS || /\d/.test(normaliseLabel(label)) || company);
    if (!loose || found.exact) match = { fields: beforeTax(label, fields), exact: found.exact, entry: found.entry, coverage: found.coverage, secondary: SECONDARY.has(found.entry) };
  }
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(label, match);
  return match;
}

type LabelFields = readonly { field: CanonicalField; kind: ValueKind }[];

/** Canonical fields a label (exactly a lexicon phrase) may introduce, in the order their value should be tried. */
export function fieldsForLabel(label: string): LabelFields {
  const match = matchLabel(label);
  if (!match?.exact) return [];
  return match.fields.filter((f): f is { field: CanonicalField; kind: ValueKind } => isCanonicalField(f.field));
}

/** Whether a word of the text, of four letters or more, is a word of some label ("PREPAY CHIT NUMBER": "number"); short ones ("de", "no") say too little. */
export function hasLabelWord(text: string): boolean {
  return text.split(/[^\p{L}]+/u).some((word) => word.length >= 4 && lexicon.hasWord(word));
}

/**
 * A row read by OCR with each word a letter away from one label word only put right ("Tatal
 * Inclusive GST" for "Total"), keeping the word's case and the row's length.
 */
export function mendLabelWords(text: string): string {
  return text.replace(/\p{L}+/gu, (word) => {
    const meant = lexicon.misread(word);
    if (!meant) return word;
    return [...meant].map((c, i) => (word[i] === word[i]!.toUpperCase() ? c.toUpperCase() : c)).join('');
  });
}

/** Whether the label is exactly a lexicon phrase, of a canonical field or not. */
export function isKnownLabel(label: string): boolean {
  return matchLabel(label)?.exact ?? false;
}

/** Whether layout should read the phrase as a label: a lexicon phrase, or one containing a phrase of a field checked by shape. */
export function isLabelPhrase(label: string): boolean {
  return matchLabel(label) !== null;
}
