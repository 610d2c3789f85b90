import { ibanValid } from '../normalise.js';
import type { XmlElement } from './xml.js';

/** One business term read from the XML, before it is checked against the page. */
export interface XmlValue {
  field: string;
  value: string;
  /** The business term and element, as the explanation names them: `BT-112 GrandTotalAmount`. */
  term: string;
  /** Below 100 when the value itself is doubtful (an IBAN whose checksum fails), with `note` saying why. */
  confidence?: number;
  note?: string;
}

/** A value of the XML that could not be read as its kind; it is left out and the page answers for its field. */
export interface Rejected {
  field: string;
  term: string;
  raw: string;
  why: string;
}

/** The confidence of an IBAN from the XML whose ISO 13616 checksum fails. */
const IBAN_CHECKSUM_FAILS = 50;

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** `12.5000` -> `12.5`, `-0` -> `0`: an exact decimal, never through a float. */
function plain(raw: string): { negative: boolean; whole: string; fraction: string } | null {
  const text = raw.trim();
  if (!DECIMAL.test(text) || text.replace(/\D/g, '').length > 30) return null;
  const negative = text.startsWith('-');
  const [whole = '', fraction = ''] = text.replace(/^[+-]/, '').split('.');
  const w = whole.replace(/^0+(?=\d)/, '') || '0';
  const f = fraction.replace(/0+$/, '');
  return { negative: negative && /[1-9]/.test(w + f), whole: w, fraction: f };
}

/** A money amount as the generic path writes one: at least two decimals, more only when the XML has them ("9.90", "0.1234"). */
export function amountValue(raw: string): string | null {
  const p = plain(raw);
  if (!p) return null;
  return `${p.negative ? '-' : ''}${p.whole}.${p.fraction.padEnd(2, '0')}`;
}

/** A quantity or a percentage as a plain decimal ("20", "1.5", "19"). */
export function decimalValue(raw: string): string | null {
  const p = plain(raw);
  if (!p) return null;
  return `${p.negative ? '-' : ''}${p.whole}${p.fraction ? `.${p.fraction}` : ''}`;
}

function isoDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1900 || year > 2199 || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** CII's `DateTimeString format="102"` (YYYYMMDD) or UBL's `YYYY-MM-DD`, as `YYYY-MM-DD`; null for anything else or a day that does not exist. */
export function dateValue(raw: string): string | null {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(raw.trim());
  return m ? isoDate(+m[1]!, +m[2]!, +m[3]!) : null;
}

export type Kind = 'amount' | 'decimal' | 'date' | 'text' | 'currency' | 'iban';

const READERS: Record<Kind, (raw: string) => string | null> = {
  amount: amountValue,
  decimal: decimalValue,
  date: dateValue,
  text: (raw) => raw.replace(/\s+/g, ' ').trim() || null,
  currency: (raw) => (/^[A-Z]{3}$/.test(raw.trim()) ? raw.trim() : null),
  iban: (raw) => {
    const compact = raw.replace(/\s+/g, '').toUpperCase();
    return /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact) ? compact : null;
  },
};

const WHY: Record<Kind, string> = {
  amount: 'is not a decimal number',
  decimal: 'is not a decimal number',
  date: 'is not a date (YYYYMMDD or YYYY-MM-DD)',
  text: 'is empty',
  currency: 'is not an ISO 4217 currency code',
  iban: 'is not an IBAN',
};

/** Collects the values read from the XML and the ones refused, in the order they are read. */
export class Collector {
  readonly values: XmlValue[] = [];
  readonly rejected: Rejected[] = [];
  /** Fields that have a value, so that an invoice of thousands of lines is collected in linear time. */
  private readonly taken = new Set<string>();

  private push(value: XmlValue): void {
    this.values.push(value);
    this.taken.add(value.field);
  }

  /** Reads `element`'s text as `kind` into `field`, once per field: the first value read wins. */
  add(field: string, term: string, element: XmlElement | undefined, kind: Kind = 'text'): void {
    if (!element || this.taken.has(field)) return;
    const raw = element.text;
    if (!raw && kind === 'text') return;
    const value = READERS[kind](raw);
    if (value === null) this.rejected.push({ field, term, raw: raw.slice(0, 40), why: WHY[kind] });
    // What the seller sent is returned as sent, but an IBAN that fails its checksum is not one to pay to unchecked.
    else if (kind === 'iban' && !ibanValid(value)) this.push({ field, value, term, confidence: IBAN_CHECKSUM_FAILS, note: 'the IBAN checksum fails' });
    else this.push({ field, value, term });
  }

  /** A value made from several elements (an address), already in its final form. */
  addValue(field: string, term: string, value: string): void {
    if (value && !this.taken.has(field)) this.push({ field, value, term });
  }
}
