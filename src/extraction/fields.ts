import { CANONICAL_FIELDS, type CanonicalField, type ValueKind, fieldsForLabel, isDocumentTitle, isKnownLabel, normaliseLabel } from './labels.js';
import { findPairs, type LabelTest, union } from './layout.js';
import { currencyOf, dateOrderOf, type DateOrder, ibanValid, parseAmount, parseDate, snakeCase } from './normalise.js';
import { EMAIL, IBAN, IBAN_ANYWHERE, INTERNATIONAL_PHONE, PHONE } from './patterns.js';
import { documentText } from './text.js';
import type { Box, DocumentText, FoundField, LabelValue, Line, Word } from './types.js';
import { findVendor, type Located } from './vendor.js';

interface ReadValue {
  value: string;
  /** 0-1: how sure the reading is, apart from OCR confidence. */
  quality: number;
  note?: string;
}

interface Candidate extends FoundField {
  position?: LabelValue['position'];
  /** For ranking totals: the amount as a number. */
  amount?: number;
}

function readValue(kind: ValueKind, text: string, order: DateOrder): ReadValue | null {
  const raw = text.replace(/\s+/g, ' ').trim();
  switch (kind) {
    case 'date': {
      const date = parseDate(raw, order);
      if (!date) return null;
      return date.ambiguous
        ? { value: date.value, quality: 0.8, note: `day and month could be swapped; read ${order}` }
        : { value: date.value, quality: 1 };
    }
    case 'amount': {
      if (!/\d/.test(raw) || parseDate(raw)) return null;
      const amount = parseAmount(raw);
      return amount ? { value: amount.value, quality: 1 } : null;
    }
    case 'id': {
      const token = raw.replace(/^(?:[#:.\s]|n[°º])+/i, '').split(' ')[0]!.replace(/[.,;]$/, '');
      if (!/\d/.test(token) || !/^[\p{L}\p{N}][\p{L}\p{N}\-/._]{0,39}$/u.test(token) || parseDate(token)) return null;
      return { value: token, quality: 1 };
    }
    case 'name': {
      const letters = raw.replace(/[^\p{L}]/gu, '').length;
      if (letters < 2 || raw.length > 100 || isKnownLabel(raw) || /^\(.*\)$/.test(raw)) return null;
      return { value: raw.replace(/[,;]$/, ''), quality: 1 };
    }
    case 'currency': {
      const code = currencyOf(raw);
      return code ? { value: code, quality: 1 } : null;
    }
    case 'tax_id': {
      const compact = raw.replace(/[\s]/g, '').toUpperCase();
      const digits = compact.replace(/\D/g, '').length;
      if (!/^[A-Z]{0,4}[0-9][0-9A-Z\-/.]{4,18}$/.test(compact) || digits < 6 || /^\d+[.,]\d{2}$/.test(compact)) return null;
      return { value: compact, quality: 1 };
    }
    case 'iban': {
      const compact = raw.replace(/\s+/g, '').toUpperCase();
      if (!ibanValid(compact)) return null;
      return { value: compact, quality: 1, note: 'checksum valid' };
    }
    case 'email': {
      const email = raw.match(EMAIL)?.[0];
      return email ? { value: email.toLowerCase(), quality: 1 } : null;
    }
    case 'phone': {
      const phone = raw.match(PHONE)?.[0];
      const digits = phone?.replace(/\D/g, '').length ?? 0;
      if (!phone || digits < 6 || digits > 15) return null;
      return { value: phone.replace(/\s+/g, ' ').trim(), quality: 1 };
    }
  }
}

function confidence(base: number, quality: number, textConfidence: number): number {
  return Math.round(Math.max(0, Math.min(100, base * quality * (textConfidence / 100))));
}

function labelExplanation(pair: LabelValue, note?: string): string {
  const where = pair.position === 'right' ? 'value to the right' : 'value below';
  return `label '${pair.label}' on page ${pair.page}, ${where}${note ? ` (${note})` : ''}`;
}

/** Four decimals are a tenth of a pixel on a 300-dpi page; more is noise in the API. */
function tidyBox(box: Box): Box {
  const r = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 10_000) / 10_000;
  return { x: r(box.x), y: r(box.y), width: r(box.width), height: r(box.height) };
}

/** The words of `line` that hold the characters from `start` to `end` of its text. */
function wordsAt(line: Line, start: number, end: number): Word[] {
  const words: Word[] = [];
  let offset = 0;
  for (const word of line.words) {
    const wordEnd = offset + word.text.length;
    if (wordEnd > start && offset < end) words.push(word);
    offset = wordEnd + 1;
  }
  return words.length ? words : line.words;
}

function meanConfidence(words: Word[]): number {
  return words.reduce((sum, w) => sum + w.confidence, 0) / (words.length || 1);
}

function allLines(doc: DocumentText): Located[] {
  return doc.pages.flatMap((page) => page.lines.map((line) => ({ page: page.number, line })));
}

function patternField(field: CanonicalField, located: Located, match: RegExpMatchArray, value: string, base: number, explanation: string): Candidate {
  const words = wordsAt(located.line, match.index!, match.index! + match[0].length);
  return {
    field,
    value,
    confidence: confidence(base, 1, meanConfidence(words)),
    explanation,
    page: located.page,
    bbox: union(words.map((w) => w.bbox)),
  };
}

function findIban(lines: Located[]): Candidate | null {
  for (const located of lines) {
    for (const match of located.line.text.matchAll(IBAN)) {
      const compact = match[0].replace(/\s+/g, '');
      if (ibanValid(compact)) return patternField('iban', located, match, compact, 90, `IBAN pattern on page ${located.page} (checksum valid)`);
    }
  }
  return null;
}

function findEmail(lines: Located[], excluded: (l: Located) => boolean): Candidate | null {
  for (const located of lines) {
    if (excluded(located)) continue;
    for (const match of located.line.text.matchAll(EMAIL)) {
      return patternField('email', located, match, match[0].toLowerCase(), 85, `e-mail address pattern on page ${located.page}`);
    }
  }
  return null;
}

function findPhone(lines: Located[], excluded: (l: Located) => boolean): Candidate | null {
  for (const located of lines) {
    if (excluded(located) || IBAN_ANYWHERE.test(located.line.text)) continue;
    for (const match of located.line.text.matchAll(INTERNATIONAL_PHONE)) {
      const digits = match[0].replace(/\D/g, '').length;
      if (digits >= 8 && digits <= 15) {
        return patternField('phone', located, match, match[0].replace(/\s+/g, ' ').trim(), 70, `international phone number pattern on page ${located.page}`);
      }
    }
  }
  return null;
}

function firstDate(lines: Located[], order: DateOrder, skip: Set<string>): Candidate | null {
  for (const located of lines) {
    const date = parseDate(located.line.text, order);
    if (!date || skip.has(date.value)) continue;
    const start = located.line.text.indexOf(date.matched);
    const words = wordsAt(located.line, start, start + date.matched.length);
    return {
      field: 'invoice_date',
      value: date.value,
      confidence: confidence(55, date.ambiguous ? 0.8 : 1, meanConfidence(words)),
      explanation: `first date on page ${located.page} (no date label)`,
      page: located.page,
      bbox: union(words.map((w) => w.bbox)),
    };
  }
  return null;
}

/**
 * A document number printed beside or under the document's title ("Invoice INV/2023/03/0008",
 * "Facture n°562044387", a "Factuur" column header): the document's own number, less sure than
 * one under an invoice-number label.
 */
function numberBesideTitle(doc: DocumentText, known: LabelTest, order: DateOrder): Candidate | null {
  const titleOrLabel: LabelTest = (phrase) => isDocumentTitle(phrase) || known(phrase);
  for (const pair of doc.pages.flatMap((page) => findPairs(page, titleOrLabel))) {
    if (!isDocumentTitle(pair.label)) continue;
    const read = readValue('id', pair.value, order);
    if (!read) continue;
    return {
      field: 'invoice_number',
      value: read.value,
      confidence: confidence(pair.position === 'right' ? 75 : 70, 1, pair.confidence),
      explanation: `number ${pair.position === 'right' ? 'beside' : 'below'} the document title '${pair.label}' on page ${pair.page} (no number label)`,
      page: pair.page,
      bbox: pair.valueBox,
    };
  }
  return null;
}

/** Totals: a value beside its label beats one below it (a column header), then the largest amount wins (a grand total beats a balance due). */
function better(field: CanonicalField, current: Candidate, challenger: Candidate): boolean {
  if (current.position !== challenger.position) return challenger.position === 'right';
  if (field === 'total_amount') return (challenger.amount ?? 0) > (current.amount ?? 0);
  return false;
}

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
 * Reads the canonical invoice/receipt fields and every other labelled value from a document.
 * Labelled values come first; patterns (IBAN, e-mail, phone, currency) and layout heuristics
 * (vendor name and address) fill what no label gave.
 */
export function extractFields(doc: DocumentText): FoundField[] {
  const text = documentText(doc);
  const order = dateOrderOf(text);
  // Layout asks about the same short phrases again and again (every line prefix), so answers are kept per document.
  const answers = new Map<string, boolean>();
  const known = (phrase: string) => answers.get(phrase) ?? answers.set(phrase, isKnownLabel(phrase)).get(phrase)!;
  const pairs = doc.pages.flatMap((page) => findPairs(page, known));
  const lines = allLines(doc);
  const found = new Map<CanonicalField, Candidate>();
  const others: FoundField[] = [];
  const otherNames = new Set<string>(CANONICAL_FIELDS);

  for (const pair of pairs) {
    const targets = fieldsForLabel(pair.label);
    for (const { field, kind } of targets) {
      const read = readValue(kind, pair.value, order);
      if (!read) continue;
      const base = pair.position === 'right' ? 95 : 90;
      const candidate: Candidate = {
        field,
        value: read.value,
        confidence: confidence(base, read.quality, pair.confidence),
        explanation: labelExplanation(pair, read.note),
        page: pair.page,
        bbox: pair.valueBox,
        position: pair.position,
        ...(kind === 'amount' ? { amount: Number(read.value) } : {}),
      };
      const current = found.get(field);
      if (!current || better(field, current, candidate)) found.set(field, candidate);
      break;
    }
    if (targets.length || !looksLikeLabel(pair)) continue;
    let name = snakeCase(pair.label);
    if (!name) continue;
    if (CANONICAL_FIELDS.includes(name as CanonicalField)) name = `${name}_2`;
    if (otherNames.has(name)) continue;
    otherNames.add(name);
    others.push({
      field: name,
      value: otherValue(pair.value, order),
      confidence: confidence(pair.position === 'right' ? 85 : 80, 1, pair.confidence),
      explanation: labelExplanation(pair),
      page: pair.page,
      bbox: pair.valueBox,
    });
  }

  const customer = found.get('customer_name');
  const inCustomerBlock = (l: Located): boolean => {
    if (!customer?.bbox || l.page !== customer.page) return false;
    const b: Box = customer.bbox;
    const overlaps = l.line.bbox.x < b.x + Math.max(b.width, 0.2) && l.line.bbox.x + l.line.bbox.width > b.x;
    return overlaps && l.line.bbox.y >= b.y - 0.01 && l.line.bbox.y < b.y + 0.15;
  };

  if (!found.has('iban')) {
    const iban = findIban(lines);
    if (iban) found.set('iban', iban);
  }
  if (!found.has('email')) {
    const email = findEmail(lines, inCustomerBlock);
    if (email) found.set('email', email);
  }
  if (!found.has('phone')) {
    const phone = findPhone(lines, inCustomerBlock);
    if (phone) found.set('phone', phone);
  }
  if (!found.has('vendor_name')) {
    const vendor = findVendor(doc, pairs, inCustomerBlock);
    if (vendor) {
      found.set('vendor_name', vendor.name);
      if (!found.has('vendor_address') && vendor.address) found.set('vendor_address', vendor.address);
    }
  }
  if (!found.has('invoice_number')) {
    const number = numberBesideTitle(doc, known, order);
    if (number) found.set('invoice_number', number);
  }
  if (!found.has('invoice_date')) {
    const skip = new Set([found.get('due_date')?.value].filter((v): v is string => !!v));
    const date = firstDate(lines, order, skip);
    if (date) found.set('invoice_date', date);
  }
  if (!found.has('currency')) {
    const currency = findCurrency(found, pairs, text);
    if (currency) found.set('currency', currency);
  }

  const canonical = CANONICAL_FIELDS.flatMap((field) => {
    const c = found.get(field);
    if (!c) return [];
    const { field: name, value, confidence: score, explanation, page, bbox } = c;
    return [{ field: name, value, confidence: score, explanation, ...(page !== undefined ? { page } : {}), ...(bbox ? { bbox } : {}) }];
  });
  return [...canonical, ...others].map((f) => (f.bbox ? { ...f, bbox: tidyBox(f.bbox) } : f));
}

/** The currency next to the total (or another amount) first, else the one the document names most often. */
function findCurrency(found: Map<CanonicalField, Candidate>, pairs: LabelValue[], text: string): Candidate | null {
  for (const field of ['total_amount', 'subtotal', 'tax_amount'] as const) {
    const amount = found.get(field);
    if (!amount) continue;
    const pair = pairs.find((p) => p.page === amount.page && p.valueBox === amount.bbox);
    const code = pair ? currencyOf(pair.value) : null;
    if (pair && code) {
      return {
        field: 'currency',
        value: code,
        confidence: confidence(90, 1, pair.confidence),
        explanation: `currency written with the ${field.replace('_', ' ')} on page ${pair.page}`,
        page: pair.page,
        bbox: pair.valueBox,
      };
    }
  }
  const counts = new Map<string, number>();
  for (const line of text.split(/[\n\f\t]/)) {
    const code = currencyOf(line);
    if (code) counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  const [code, count] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (!code) return null;
  return {
    field: 'currency',
    value: code,
    confidence: counts.size === 1 ? 75 : 55,
    explanation: `currency named on ${count} line${count === 1 ? '' : 's'} of the document (no currency next to the total)`,
  };
}
