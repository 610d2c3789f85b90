import type { components } from '../../generated/openapi.js';
import { currencyOf, parseAmount, parseDate, type DateOrder } from '../extraction/normalise.js';
import { EMAIL } from '../extraction/patterns.js';

type FieldType = components['schemas']['FieldType'];
type TemplateOptions = components['schemas']['TemplateOptions'];

export interface ValueContext {
  options: TemplateOptions;
  /** Field formats first, then the template's. */
  formats: string[];
  /** Day/month order for dates no format reads. */
  dateOrder: DateOrder;
}

const TOKENS: Record<string, string> = {
  d: '(?<d>\\d{1,2})',
  e: '(?<d>\\d{1,2})',
  m: '(?<m>\\d{1,2})',
  Y: '(?<Y>\\d{4})',
  y: '(?<y>\\d{2})',
  B: '(?<B>\\p{L}+\\.?)',
  b: '(?<B>\\p{L}+\\.?)',
  h: '(?<B>\\p{L}+\\.?)',
  A: '\\p{L}+',
  a: '\\p{L}+\\.?',
  H: '\\d{1,2}',
  I: '\\d{1,2}',
  M: '\\d{2}',
  S: '\\d{2}',
  p: '[AaPp][Mm]',
  '%': '%',
};

/** The first strftime directive of `format` that dates cannot be read with, if any. */
export function unknownDirective(format: string): string | null {
  for (const m of format.matchAll(/%(.?)/gu)) if (!(m[1]! in TOKENS)) return `%${m[1]}`;
  return null;
}

const formatCache = new Map<string, RegExp | null>();

/**
 * A strftime format as a whole-value pattern. Spacing is loose on purpose: invoice2data hands a
 * format's failures to dateparser, which shrugs off "August 3 , 2014" against "%B %d, %Y".
 */
function formatRegex(format: string): RegExp | null {
  if (formatCache.has(format)) return formatCache.get(format)!;
  let source = '';
  let ok = true;
  for (let i = 0; i < format.length; i += 1) {
    const c = format[i]!;
    if (c === '%') {
      const token = TOKENS[format[i + 1] ?? ''];
      if (token === undefined) ok = false;
      source += token ?? '';
      i += 1;
    } else if (/\s/.test(c)) {
      source += '\\s*';
    } else {
      source += `\\s*${c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`;
    }
  }
  const regex = ok ? new RegExp(`^\\s*${source}\\s*$`, 'iu') : null;
  formatCache.set(format, regex);
  return regex;
}

/** Month number of a month name in any language the generic date reader knows. */
function monthNumber(name: string): number | null {
  const parsed = parseDate(`1 ${name} 2000`);
  return parsed ? Number(parsed.value.slice(5, 7)) : null;
}

function isoDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (month < 1 || month > 12 || date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function dateWithFormat(value: string, format: string): string | null {
  const g = formatRegex(format)?.exec(value)?.groups;
  if (!g) return null;
  const year = g.Y ? Number(g.Y) : g.y ? 2000 + Number(g.y) - (Number(g.y) >= 70 ? 100 : 0) : null;
  const month = g.m ? Number(g.m) : g.B ? monthNumber(g.B) : null;
  const day = g.d ? Number(g.d) : 1;
  return year === null || month === null ? null : isoDate(year, month, day);
}

export function normaliseDate(value: string, ctx: ValueContext): string | null {
  for (const format of ctx.formats) {
    const date = dateWithFormat(value, format);
    if (date) return date;
  }
  return parseDate(value, ctx.dateOrder)?.value ?? null;
}

/**
 * invoice2data's number reading: the template's decimal separator is the decimal point and any
 * other dot, comma or space is a thousands separator; a trailing "cr" marks a credit. Without a
 * separator in the template the generic reader decides from the digits.
 */
export function parseNumber(value: string, separator: string | undefined): number | null {
  if (!separator) {
    const parsed = parseAmount(value);
    return parsed ? Number(parsed.value) : null;
  }
  const text = value.trim().toLowerCase();
  if (text.split(separator).length > 2) return null;
  let digits = text.split(separator).map((part) => part.replace(/[.,\s\u00a0'’]/g, '')).join('.');
  const credit = digits.endsWith('cr');
  if (credit) digits = digits.slice(0, -2);
  digits = digits.replace(/[^\d.+-]/g, '');
  if (digits.endsWith('-')) digits = `-${digits.slice(0, -1)}`;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(digits)) return null;
  const n = Number(digits);
  return credit ? -n : n;
}

export const formatAmount = (n: number) => (Math.round(n * 100) / 100 + 0).toFixed(2);

/** A typed value as compared and grouped; `text` is what the API returns. */
export interface TypedValue {
  text: string;
  /** Numbers for amounts and integers, ISO strings for dates, the text otherwise. */
  key: number | string;
}

/**
 * How a value is read: a template field's `type`, or one of the forms generic extraction gives the
 * canonical fields (`currency`: an ISO 4217 code; `compact`: upper case without spaces, as IBANs and
 * tax ids are; `email`: the address alone; `text`: spaces collapsed).
 */
export type ValueForm = FieldType | 'currency' | 'compact' | 'email' | 'text';

/** The form of each canonical field (see `CANONICAL_FIELDS` in extraction/labels.ts), as generic extraction returns it. */
export const CANONICAL_FORMS: Readonly<Record<string, ValueForm>> = {
  invoice_number: 'text',
  invoice_date: 'date',
  due_date: 'date',
  vendor_name: 'text',
  vendor_address: 'text',
  customer_name: 'text',
  subtotal: 'amount',
  tax_amount: 'amount',
  total_amount: 'amount',
  currency: 'currency',
  purchase_order: 'text',
  vendor_tax_id: 'compact',
  iban: 'compact',
  email: 'email',
  phone: 'text',
};

/** A field's form: its explicit `type` wins, then its name's canonical form; any other field is text as read. */
export const formOf = (name: string, type: FieldType | undefined): ValueForm | undefined => type ?? CANONICAL_FORMS[name];

export function coerce(raw: string, type: ValueForm | undefined, ctx: ValueContext): TypedValue | null {
  switch (type) {
    case 'currency': {
      const code = currencyOf(raw) ?? (/^\s*[A-Za-z]{3}\s*$/.test(raw) ? raw.trim().toUpperCase() : null);
      return code ? { text: code, key: code } : null;
    }
    case 'compact': {
      const text = raw.replace(/\s+/g, '').toUpperCase();
      return text ? { text, key: text } : null;
    }
    case 'email': {
      const email = raw.match(EMAIL)?.[0];
      return email ? { text: email, key: email } : null;
    }
    case 'text': {
      const text = raw.replace(/\s+/g, ' ').trim();
      return { text, key: text };
    }
    case 'date': {
      const date = normaliseDate(raw, ctx);
      return date ? { text: date, key: date } : null;
    }
    case 'amount': {
      if (!raw.trim()) return { text: '0.00', key: 0 };
      const n = parseNumber(raw, ctx.options.decimal_separator);
      return n === null ? null : { text: formatAmount(n), key: n };
    }
    case 'integer': {
      if (!raw.trim()) return { text: '0', key: 0 };
      const n = parseNumber(raw, ctx.options.decimal_separator);
      return n === null ? null : { text: String(Math.trunc(n)), key: Math.trunc(n) };
    }
    default: {
      const text = raw.trim();
      return { text, key: text };
    }
  }
}
