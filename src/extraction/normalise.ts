/** Turns the many ways documents write dates, amounts and currencies into one canonical form each. */

export type DateOrder = 'day-first' | 'month-first';

const MONTHS: Record<string, number> = {};
const MONTH_NAMES: string[][] = [
  ['january', 'jan', 'januar', 'jänner', 'janvier', 'janv', 'enero', 'ene', 'gennaio', 'gen', 'januari'],
  ['february', 'feb', 'februar', 'février', 'fevrier', 'févr', 'fevr', 'febrero', 'febbraio', 'februari'],
  ['march', 'mar', 'märz', 'maerz', 'mars', 'marzo', 'maart', 'mrt'],
  ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile'],
  ['may', 'mai', 'mayo', 'maggio', 'mag', 'mei'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu'],
  ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'ago', 'augustus'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'settembre', 'set'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott'],
  ['november', 'nov', 'novembre', 'noviembre'],
  ['december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'déc', 'diciembre', 'dic', 'dicembre'],
];
MONTH_NAMES.forEach((names, i) => names.forEach((n) => (MONTHS[n] = i + 1)));

const MONTH_WORD = `(${Object.keys(MONTHS).sort((a, b) => b.length - a.length).join('|')})\\.?`;

function iso(year: number, month: number, day: number): string | null {
  if (year < 100) year += year < 70 ? 2000 : 1900;
  // Outside these years a "date" is a misread or a number that only looks like one.
  if (year < 1900 || year > 2199) return null;
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const NUMERIC_YMD = /(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/;
const NUMERIC_DOTTED = /(?<!\d)(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})(?![\d.])/;
const NUMERIC_SLASHED = /(?<!\d)(\d{1,2})[/-](\d{1,2})[/-](\d{4}|\d{2})(?!\d)/;
/** OCR sets a space beside a separator now and then ("30- 04 -2018"); with a four-digit year only, so that "1 - 5 - 10" stays a range. */
const SPACED_SLASHED = /(?<!\d)(\d{1,2}) ?[/-] ?(\d{1,2}) ?[/-] ?(\d{4})(?!\d)/;
const DAY_MONTH_YEAR = new RegExp(`(?<![\\p{L}\\d])(\\d{1,2})(?:st|nd|rd|th|er|e)?\\.?[\\s/-]+${MONTH_WORD}[\\s,/-]+(\\d{4}|\\d{2})(?![\\d:])`, 'iu');
const MONTH_DAY_YEAR = new RegExp(`(?<![\\p{L}])${MONTH_WORD}\\s+(\\d{1,2})(?:st|nd|rd|th|er|e)?(?:\\s*,)?\\s+(\\d{4})(?!\\d)`, 'iu');

export interface ParsedDate {
  value: string;
  /** The text the date was read from. */
  matched: string;
  /** Whether day and month could have been the other way round. */
  ambiguous: boolean;
}

/**
 * Reads the first date in `text`. Slashed dates like 03/04/2026 are read day-first unless
 * `order` says the document is month-first, because most of the world (and every EU invoice)
 * writes day-first; the caller decides `order` from the whole document (see `dateOrderOf`).
 * A part above 12 settles the order for that date regardless.
 */
export function parseDate(text: string, order: DateOrder = 'day-first'): ParsedDate | null {
  const found: (ParsedDate & { at: number })[] = [];
  const add = (m: RegExpExecArray | null, value: string | null, ambiguous = false) => {
    if (m && value) found.push({ value, matched: m[0], ambiguous, at: m.index });
  };
  let m = NUMERIC_YMD.exec(text);
  add(m, m && iso(+m[1]!, +m[2]!, +m[3]!));
  m = DAY_MONTH_YEAR.exec(text);
  add(m, m && iso(+m[3]!, MONTHS[m[2]!.toLowerCase()]!, +m[1]!));
  m = MONTH_DAY_YEAR.exec(text);
  add(m, m && iso(+m[3]!, MONTHS[m[1]!.toLowerCase()]!, +m[2]!));
  m = NUMERIC_DOTTED.exec(text);
  add(m, m && iso(+m[3]!, +m[2]!, +m[1]!));
  m = NUMERIC_SLASHED.exec(text) ?? SPACED_SLASHED.exec(text);
  if (m) {
    const a = +m[1]!;
    const b = +m[2]!;
    const year = +m[3]!;
    const monthFirst = a > 12 ? false : b > 12 ? true : order === 'month-first';
    add(m, monthFirst ? iso(year, a, b) : iso(year, b, a), a <= 12 && b <= 12 && a !== b);
  }
  // The leftmost: a till's "07/04/2018 18.10.59" is a date and a time, not two dates.
  const first = found.reduce<(typeof found)[number] | null>((best, d) => (best === null || d.at < best.at ? d : best), null);
  return first && { value: first.value, matched: first.matched, ambiguous: first.ambiguous };
}

/** ISO 8601's basic form, as tills print it ("20180428/191204"): eight figures, a year of this or the last century first. */
const COMPACT_YMD = /(?<!\d)((?:19|20)\d{2})(\d{2})(\d{2})(?!\d)/;

/**
 * A date written as eight figures. Only beside a date label: elsewhere eight figures are more
 * often a number (an invoice's, a barcode's) than a date.
 */
export function parseCompactDate(text: string): ParsedDate | null {
  const m = COMPACT_YMD.exec(text);
  const value = m && iso(+m[1]!, +m[2]!, +m[3]!);
  return value ? { value, matched: m[0], ambiguous: false } : null;
}

/**
 * Decides how a document writes its slashed dates. A slashed date with a first part above 12
 * proves day-first and one with a second part above 12 proves month-first; otherwise US cues
 * (a "March 15, 2026" style date, amounts in US dollars) mean month-first. Without evidence: day-first.
 */
export function dateOrderOf(text: string): DateOrder {
  const slashed = new RegExp(NUMERIC_SLASHED.source, 'g');
  for (const m of text.matchAll(slashed)) {
    if (+m[1]! > 12 && +m[2]! <= 12) return 'day-first';
    if (+m[2]! > 12 && +m[1]! <= 12) return 'month-first';
  }
  if (MONTH_DAY_YEAR.test(text) && !DAY_MONTH_YEAR.test(text)) return 'month-first';
  // A dollar amount has cents: "$000022185" is a registration number OCR began with a dollar sign.
  if (/\bUSD\b|US\$|(?<![A-Z])\$\s?\d[\d,]*\.\d{2}(?!\d)/.test(text) && !/€|\bEUR\b|£|\bGBP\b|\bCAD\b|\bAUD\b/.test(text)) return 'month-first';
  return 'day-first';
}

/** Thousands written with spaces or apostrophes ("1 234,50", "1'234.50"): groups of exactly three digits. */
const SPACE_IN_NUMBER = /(?<=\d)[ \u00a0\u202f\u2009'](?=\d{3}(?!\d))/g;

export interface ParsedAmount {
  /** Decimal string with two decimals, e.g. "1234.50"; negative amounts keep their sign. */
  value: string;
  matched: string;
  currency: string | null;
}

/**
 * Where the decimal mark of a number written with ',' and '.' is: with both, the last one; a single
 * separator followed by exactly three digits is a thousands separator (`threeAfter`), since
 * invoices show cents with two digits. `at` is -1 when there is no decimal mark.
 */
export function decimalMark(raw: string): { at: number; threeAfter: boolean } {
  const lastComma = raw.lastIndexOf(',');
  const lastDot = raw.lastIndexOf('.');
  if (lastComma >= 0 && lastDot >= 0) return { at: Math.max(lastComma, lastDot), threeAfter: false };
  const sep = lastComma >= 0 ? ',' : lastDot >= 0 ? '.' : null;
  if (!sep || raw.split(sep).length - 1 !== 1) return { at: -1, threeAfter: false };
  const at = raw.lastIndexOf(sep);
  return raw.length - at - 1 === 3 ? { at: -1, threeAfter: true } : { at, threeAfter: false };
}

/** Amounts agree when they are the same to the cent (floating point aside). */
export const amountsAgree = (a: number, b: number) => Math.abs(a - b) < 0.005;

/**
 * Reads the first amount in `text`. With both ',' and '.' present the last one is the decimal
 * mark; a single separator followed by exactly three digits is a thousands separator
 * ("1.234" and "1,234" both mean 1234), since invoices show cents with two digits.
 */
export function parseAmount(text: string): ParsedAmount | null {
  const currency = currencyOf(text);
  const compact = text.replace(SPACE_IN_NUMBER, '');
  const m = /(-|\()?(?<![\d.,])(\d{1,3}(?:[.,]\d{3})+(?:[.,]\d{1,4})?|\d+(?:[.,]\d{1,4})?)(?!\d|\s?%)(\))?/.exec(compact);
  if (!m) return null;
  const raw = m[2]!;
  // "-RM 0.02", "- € 5,00": the sign before the currency.
  const signedCurrency = m.index > 0 && /-\s?(?:[A-Z]{2,3}|[^\p{L}\p{N}\s.,()-])\s?$/u.test(compact.slice(0, m.index));
  const negative = m[1] === '-' || (m[1] === '(' && m[3] === ')') || signedCurrency;
  const decimalAt = decimalMark(raw).at;
  const intPart = (decimalAt >= 0 ? raw.slice(0, decimalAt) : raw).replace(/[.,]/g, '');
  const fraction = decimalAt >= 0 ? raw.slice(decimalAt + 1) : '';
  const value = centsString(intPart, fraction, negative);
  return { value, matched: m[0].trim(), currency };
}

function centsString(intPart: string, fraction: string, negative: boolean): string {
  let cents = BigInt(intPart || '0') * 100n + BigInt((fraction + '00').slice(0, 2));
  if (fraction.length > 2 && Number(fraction[2]) >= 5) cents += 1n;
  const whole = cents / 100n;
  const rest = String(cents % 100n).padStart(2, '0');
  return `${negative && cents > 0n ? '-' : ''}${whole}.${rest}`;
}

/** Codes common on invoices; a closed list so that words like "VAT" or "PDF" are never read as a currency. */
const ISO_CODES = new Set(
  'EUR USD GBP CHF JPY CNY INR CAD AUD NZD SEK NOK DKK PLN CZK HUF RON BGN HRK ISK TRY RUB UAH ZAR BRL MXN ARS CLP COP PEN SGD HKD KRW TWD THB MYR IDR PHP VND AED SAR QAR KWD ILS EGP NGN KES MAD'.split(' '),
);

const SYMBOLS: [RegExp, string][] = [
  [/US\$/, 'USD'],
  [/(?:CA|C)\$/, 'CAD'],
  [/(?:AU|A)\$/, 'AUD'],
  [/NZ\$/, 'NZD'],
  [/HK\$/, 'HKD'],
  [/S\$/, 'SGD'],
  [/R\$/, 'BRL'],
  [/€/, 'EUR'],
  [/£/, 'GBP'],
  [/₹|\bRs\.?(?=\s?-?\d)/, 'INR'],
  [/\bRM(?=\s?-?\d)/, 'MYR'],
  [/CN¥|RMB|元/, 'CNY'],
  [/¥|円/, 'JPY'],
  [/₩/, 'KRW'],
  [/₽/, 'RUB'],
  [/₺/, 'TRY'],
  [/₪/, 'ILS'],
  [/zł/, 'PLN'],
  [/Kč/, 'CZK'],
  [/\bFr\.(?=\s?\d)|\bSFr\b/, 'CHF'],
  [/\$/, 'USD'],
];

const UPPER_CODE = /(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])/g;

/** The ISO 4217 code a text names, by code first, then by symbol. */
export function currencyOf(text: string): string | null {
  for (const m of text.matchAll(UPPER_CODE)) {
    if (ISO_CODES.has(m[1]!)) return m[1]!;
  }
  for (const [pattern, code] of SYMBOLS) if (pattern.test(text)) return code;
  return null;
}

/** The text without the currency codes it names in capitals: "Total EUR" is the label "Total". */
export function withoutCurrencyCodes(text: string): string {
  return text.replace(UPPER_CODE, (code) => (ISO_CODES.has(code) ? ' ' : code));
}

/** Converts a label to a field name: "Bank Ref. No." -> "bank_ref_no". */
export function snakeCase(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/#/g, ' number ')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
}

/** ISO 13616 check: move the first four characters to the end, letters to numbers, mod 97 must be 1. */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const rearranged = s.slice(4) + s.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}
