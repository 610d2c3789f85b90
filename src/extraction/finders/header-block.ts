import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hasLabelWord, isKnownLabel, matchLabel, startsWithTitle } from '../labels.js';
import { foldPhrase } from '../lexicon.js';
import { union } from '../layout.js';
import { parseDate } from '../normalise.js';
import { isAddressOrContact } from '../patterns.js';
import type { Line } from '../types.js';
import { hasLegalForm, isLegalFormOnly, NAMED_COMPANY, withoutLegalForm } from '../legal-forms.js';
import { COLUMN_HEADING, readsLikeName } from '../vendor.js';
import { meanConfidence } from './words.js';
import type { Candidate, Finder } from './types.js';

const words = JSON.parse(readFileSync(fileURLToPath(new URL('../lexicon/address.json', import.meta.url)), 'utf8')) as Record<'thoroughfares' | 'street' | 'business' | 'registration' | 'street_suffixes', string[]>;
const phrases = (list: string[]) => list.map((w) => ` ${foldPhrase(w)} `);
const STREET = phrases(words.street);
const BUSINESS = phrases(words.business);
const REGISTRATION = phrases(words.registration);
/** German and Dutch streets are one word: "Lieferantenstraße", "Kerkstraat". */
const STREET_SUFFIX = new RegExp(`\\p{L}(?:${words.street_suffixes.map((w) => foldPhrase(w)).join('|')})\\b`, 'u');

const has = (text: string, list: string[]) => {
  const folded = ` ${foldPhrase(text)} `;
  return list.some((p) => folded.includes(p));
};

/** A postcode (four to six digits alone) or a house number before the street ("27,JALAN", "12 Main St"). */
const POSTCODE = /(?<![\d-])\d{4,6}(?![\d-])/;
/** British and Irish postcodes ("SW1B 3BN") carry letters. */
const UK_POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b/;
const HOUSE_NUMBER = /^[^\p{L}\p{N}]*(?:no\.?\s*[:：]?\s*\d|(?:lot|unit|block|blk)\b|\d{1,5}[A-Za-z]?\s*[,.]\s*\p{L}|\d{1,5}[A-Za-z]?,\s+\w+\/|(?=[A-Z-]*\d)[A-Z\d]{1,4}(?:-[A-Z\d]{1,4}){1,3}\s*,\s*\p{L})/iu;
/** The line that ends an address: a postcode followed by its place ("43300 SERI KEMBANGAN"), not a lot number ("LOT 1851,", "LOT 34817 JALAN") or a street's ("JALAN 3/1378 BATU 5"). */
const POSTCODE_PLACE = /(?<![\d/&-])(?<!\b(?:lot|no|unit|blk|block)\.?\s*)\d{4,6}\s+(\p{L}{3,})/iu;
const THOROUGHFARES = new Set(words.thoroughfares);

/** A postcode and its place; a number before a street's name ("2685 JLN GENTING", its "LOT" misread) is a lot or house number. */
function isPostcodeLine(text: string): boolean {
  const m = POSTCODE_PLACE.exec(text);
  return (m !== null && !THOROUGHFARES.has(foldPhrase(m[1]!))) || UK_POSTCODE.test(text);
}
/** A company or tax registration number alone, often in brackets: "(933109-X)", "JM0325955-V". */
const REGISTRATION_NUMBER = /^[({[]?[A-Z]{0,3}\s?\d{4,}[-\s]?[A-Z]?\)?\.?$/;
const HEADER_ROWS = 14;
/** A row ending in an amount with cents, and perhaps a tax code after it. */
const PRICED = /\d[.,]\d{2}(?:\s+\S{1,3})?$/;
/** A registration number printed after the company's name: "GOLDEN SCOOP SDN BHD (169609-A)". */
const TRAILING_REGISTRATION = /[\s,]*\(?[A-Z]{0,3}\d{4,}[-\s]?[A-Z]?\)?(?:\s*\([A-Z]{2,4}\))?\s*$/;
/** A company's name never goes on after its registration number: "URBAN IDEA SDN BHD (417940-M), A-G-06, ...". */
const AFTER_REGISTRATION = /\s*\(\s*[A-Z]{0,3}\d{4,}[-\s]?[A-Z]?\s*\).*$/;
/** Specks OCR read after a name in capitals: "PRINT EXPERT SDN BHD by ol". */
const TRAILING_SPECKS = /(?:\s+(?:[a-z]{1,2}|[^\p{L}\p{N}\s(]{1,2}))+$/u;

/** The company's name as printed on its line(s), without what OCR or the line adds after it. */
function nameOf(text: string): string {
  const name = text.replace(AFTER_REGISTRATION, '').replace(TRAILING_REGISTRATION, '');
  // "THE STORE (MALAYSIA) SDN BHD (B19%": marks and figures after the legal form are a registration number OCR garbled.
  const company = NAMED_COMPANY.exec(name)?.[0];
  if (company && !/\p{L}{3}/u.test(name.slice(company.length))) return company;
  const bare = name.replace(TRAILING_SPECKS, '');
  return bare !== name && bare === bare.toUpperCase() && /\p{L}{3}/u.test(bare) ? bare : name;
}
/** An address ends soon after its postcode line: at most this many short lines (state, country) follow it. */
const AFTER_POSTCODE = 1;

/** A row read at under this mean confidence is OCR's guess at a stain or a picture. */
const NOISE = 25;

/** A postcode alone on its line. */
const POSTCODE_ONLY = /^\d{5}\.?$/;

/** A line ending in a full stop, not in an abbreviation's ("NO.", "JLN."). */
const FULL_STOP = /\p{L}{3,}\.\s*$/u;

/** A remark in brackets, however OCR read the brackets ("{JALAN KLANG LAMA}"). */
const bracketed = (text: string) => /^[({[].*[)}\]]$/.test(text.trim());
/** A remark in brackets without a figure: a branch's name, never its phone or registration number. */
const branchRemark = (text: string) => bracketed(text) && !/\d/.test(text);

/** Labelled details a letterhead carries beside the company's name and address. */
const LETTERHEAD_FIELDS = new Set(['vendor_tax_id', 'phone', 'email']);

type Kind = 'name' | 'address' | 'registration' | 'contact' | 'end' | 'other';

interface Row {
  text: string;
  lines: Line[];
  kind: Kind;
  business: boolean;
}

/** A street line: a street word, a one-word street name ("Musterstraße 42") or a house number first. */
export function isStreetLine(text: string): boolean {
  return has(text, STREET) || STREET_SUFFIX.test(foldPhrase(text)) || HOUSE_NUMBER.test(text);
}

/** Any line of an address: a street line, or a postcode with a place ("DE 80333 München"). */
export function isAddressLine(text: string): boolean {
  return isStreetLine(text) || ((POSTCODE.test(text) || UK_POSTCODE.test(text)) && /\p{L}{3,}/u.test(text));
}

/** A row of marks and letters standing alone ("ey et oe —_——", "= = ="): a logo, a rule or a stain read as text, which ends an address. */
const specks = (text: string) => !/\p{L}{3}|\d/u.test(text);

/** A trade word in a short row ("RESTAURANT SIN DU", "ABC HO TRADING"); in a long one it is prose or a heading. */
function business(text: string): boolean {
  return foldPhrase(text).split(' ').length <= 6 && has(text, BUSINESS);
}

/** A row of trade words and nothing else ("BISTRO & CAFE"), no legal form among them. */
function tradeOnly(text: string): boolean {
  if (hasLegalForm(text)) return false;
  let rest = ` ${foldPhrase(text)} `;
  for (const phrase of BUSINESS) rest = rest.replaceAll(phrase, ' ');
  return !rest.replace(/\b(?:and|dan)\b/g, ' ').trim();
}

/** A document title, whatever specks OCR read before it ("® TAX INVOICE"). */
const isTitleRow = (text: string) => startsWithTitle(text.trim().replace(/^[^\p{L}\p{N}]+/u, ''));

/** A receipt's running number stamped before its first line ("#000002 BAIFU (M) Sdn Bhd"). */
const RUNNING_NUMBER = /^#\d+\s+(?=\p{L})/u;

/** A short heading before a colon ("HQ:", "Branch:"). */
const HEADING = /^\p{L}[\p{L} ]{0,15}[:：]\s*(.+)$/u;

/** A street with its street word or postcode after a heading: "HQ: 7, JLN SS21/34, 47400 PJ", not "Cashier: 7, Counter 2". */
function isHeadedStreet(text: string): boolean {
  const rest = HEADING.exec(text)?.[1];
  return rest !== undefined && isStreetLine(rest) && (has(rest, STREET) || POSTCODE.test(rest));
}

function kindOf(text: string, lines: Line[]): Kind {
  // A colon OCR read before a row is a speck, not the end of a label.
  const trimmed = text.trim().replace(/^[:：]\s*/, '');
  // A row of column labels ("Order | Factuur datum | Vervaldatum") ends a letterhead like a single label does;
  // a letterhead's own details ("GST NO: | 000342237184") do not.
  const labels = lines.flatMap((l) => matchLabel(l.text.replace(/\s*[:：]\s*$/, ''))?.fields ?? []);
  const letterhead = (matchLabel(trimmed.replace(/\s*[:：].*$/, ''))?.fields ?? labels).every((f) => LETTERHEAD_FIELDS.has(f.field));
  if (lines.length > 1 && labels.length && !letterhead) return 'end';
  if (isTitleRow(trimmed) || parseDate(trimmed) || COLUMN_HEADING.test(trimmed.split(/\s+/).slice(0, 3).join(' '))) return 'end';
  // "GST ID: 0012", "TEL: 07-35": letterheads carry labelled details; they stop an address, not the header.
  if (isKnownLabel(trimmed.replace(/\s*[:：].*$/, ''))) return 'contact';
  if (REGISTRATION_NUMBER.test(trimmed.replace(/\s+/g, ' ')) || has(trimmed, REGISTRATION)) return 'registration';
  // "22241 WS CUT SCISSORS 18.00 SR": an item and its price, however like a postcode its code reads.
  if (PRICED.test(trimmed)) return 'other';
  // "(TONYMOLY SHOP (95874))": a remark in brackets, however like a postcode its number reads.
  if (bracketed(trimmed)) return 'other';
  // "VIVOPAC MARKETING SDN BHD (1070687-M)": the registration number reads like a phone number; the name before it decides.
  const named = nameOf(trimmed);
  if (named !== trimmed && (hasLegalForm(named) || business(named)) && readsLikeName(named)) return 'name';
  const street = isStreetLine(trimmed) || isHeadedStreet(trimmed);
  // An address line may hold a colon ("NO: 1-1&2 GROUND FLOOR"); a phone, mail or web address it does not.
  if (isAddressOrContact(trimmed.replace(/[:：]/g, ' ')) && !street) return 'contact';
  // "1H be WH Be « 2 FPL LH So LRing": specks OCR could barely read make no street, whatever word they end in.
  if (street && meanConfidence(lines.flatMap((l) => l.words)) < NOISE) return 'other';
  if (street) return 'address';
  // "Cashier: 01", "Table: 5": a label and its value, not part of a letterhead; a colon OCR read at a row's end is a speck.
  if (/[:：]\s*\S/.test(trimmed)) return 'contact';
  if (POSTCODE.test(trimmed) && /\p{L}{3,}/u.test(trimmed)) return 'address';
  if (readsLikeName(trimmed)) return 'name';
  // A company's name may hold a number ("ZEN AND COFFEE 28 S/B", "TRIPLE SIX POINT ENTERPRISE 666").
  if ((hasLegalForm(trimmed) || business(trimmed)) && readsLikeName(trimmed.replace(/\d+/g, ''))) return 'name';
  return 'other';
}

/** The first page's rows from the top down to the first date, title or label: a letterhead or a receipt's header. */
function headerRows(lines: Line[]): Row[] {
  const rows: Row[] = [];
  for (const line of lines) {
    const last = rows.at(-1);
    if (last && last.lines[0]!.row === line.row) {
      last.lines.push(line);
      last.text += ` ${line.text}`;
      continue;
    }
    // A row is whole once the next one starts: the header ends at the first date, title or label
    // under a name; one above every name ("TAX INVOICE" over the company) is passed over, and so is a
    // title between the name and an address under it ("PERNIAGAAN RIANG RIA" / "TAX INVOICE" / "NO7,JLN UERO,SHAH ALAM.").
    if (last && kindOf(last.text, last.lines) === 'end') {
      const named = rows.some((r) => kindOf(r.text, r.lines) === 'name');
      const addressUnder = isTitleRow(last.text) && kindOf(line.text, [line]) === 'address' && !rows.some((r) => kindOf(r.text, r.lines) === 'address');
      if (named && !addressUnder) break;
      rows.pop();
    }
    if (rows.length >= HEADER_ROWS || line.bbox.y > 0.5) break;
    rows.push({ text: line.text.replace(RUNNING_NUMBER, ''), lines: [line], kind: 'other', business: false });
  }
  for (const row of rows) {
    row.kind = kindOf(row.text, row.lines);
    row.business = row.kind === 'name' && (hasLegalForm(row.text) || business(row.text));
  }
  return rows.filter((r) => r.kind !== 'end');
}

/**
 * Where the address under the name at `end` starts: at its first line recognised as one, or, when
 * that line is the postcode and place, at the line right under the name (past its registration
 * number), however OCR misread the street ("NEWAH 25/63 THN SRI HULA," for "JLN MEWAH 25/63").
 */
function addressStart(rows: Row[], end: number, firstAddress: number): number {
  if (firstAddress < 0 || firstAddress <= end) return -1;
  let next = end + 1;
  while (next < firstAddress && rows[next]!.kind === 'registration') next += 1;
  const between = rows.slice(next, firstAddress);
  const postcodeFirst = isPostcodeLine(rows[firstAddress]!.text);
  if (postcodeFirst && between.length <= 2 && between.every((r) => r.kind === 'name' || r.kind === 'other')) return next;
  // "NO PERJIRANAN 10," over "TAMAN AIR BIRU,": a line ending in a comma goes on into the address under it.
  const continued = between.length === 1 && /\d.*,$/.test(between[0]!.text.trim()) && (between[0]!.kind === 'name' || between[0]!.kind === 'other');
  return continued ? next : firstAddress;
}

/**
 * The issuer at the head of a receipt or letterhead: the company line (a legal form or a trade
 * word such as "Sdn Bhd", "Trading", "GmbH"), or else the name line nearest above the address,
 * and the address lines under it down to the phone, registration or tax line. Strong on
 * receipts, whose header holds little else; a hint on invoices, where other finders weigh more.
 */
export const headerBlock: Finder = (ctx) => {
  const page = ctx.doc.pages[0];
  if (!page) return [];
  const rows = headerRows(page.lines.filter((line) => !ctx.inRecipientBlock({ page: page.number, line })));
  const firstAddress = rows.findIndex((r) => r.kind === 'address');
  const above = firstAddress >= 0 ? rows.slice(0, firstAddress) : rows;
  let start = above.findIndex((r) => r.business);
  let how = 'company line';
  if (start < 0) {
    const kinds = above.map((r) => r.kind);
    start = firstAddress >= 0 ? kinds.lastIndexOf('name') : kinds.indexOf('name');
    how = firstAddress >= 0 ? 'name line above the address' : 'first name line';
  }
  // "32 PUB & BISTRO own by CNU TRADING": with no name above the address, the row right above it
  // is the name when it reads as one but for its figures.
  if (start < 0 && firstAddress > 0 && above.at(-1)!.kind === 'other' && readsLikeName(above.at(-1)!.text.replace(/\d+/g, '').trim())) start = above.length - 1;
  if (start < 0) return [];
  // "PASARAYA BORONG PINTAR" over "SDN BHD", "THE COFFEE BEAN" over "& TEA LEAF (M) SDN BHD", "WESTERN EASTERN" over
  // "STATIONERY SDN. BHD": the company line only ends the name above it.
  const company = above[start]!.text.trim();
  const onlyEnds = isLegalFormOnly(company) || /^(?:&|(?:restaurant|restoran|sdn|bhd|s\/b)\b)/i.test(company) || (hasLegalForm(company) && tradeOnly(withoutLegalForm(company)));
  if (onlyEnds && start > 0 && above[start - 1]!.kind === 'name') start -= 1;
  // "THREE STOOGES" over "BISTRO & CAFE": trade words alone under a name say what the business is, not what it is called.
  const described = !onlyEnds && start > 0 && above[start - 1]!.kind === 'name' && tradeOnly(above[start]!.text);
  if (described) start -= 1;
  // A company name broken over two lines ("HOME MASTER HARDWARE &" / "ELECTRICAL").
  let end = start;
  while (!described && end + 1 < above.length && above[end + 1]!.kind === 'name' && (/[&,\-]$/.test(above[end]!.text.trim()) || above[end + 1]!.business)) end += 1;
  const receipt = ctx.documentType === 'receipt';
  // "CHECKERS HYPERMARKET SDN BHD" over "(JALAN KLANG LAMA)": a receipt names the branch in brackets under the company.
  if (receipt && end + 1 < above.length && branchRemark(above[end + 1]!.text)) end += 1;
  const nameRows = rows.slice(start, end + 1);
  const name = nameOf(nameRows.map((r) => r.text.trim()).join(' '));
  const nameLines = nameRows.flatMap((r) => r.lines);
  const out: Candidate[] = [
    {
      field: 'vendor_name',
      value: name.replace(/^[:：;|\s]+/, '').replace(/[,;&\s]+$/, ''),
      // On an invoice other finders know more; a company line at the very top still says much there.
      score: receipt ? 0.8 * (how === 'company line' ? 1 : how === 'first name line' ? 0.75 : 0.9) : how === 'company line' ? 0.6 : 0.4,
      textConfidence: meanConfidence(nameLines.flatMap((l) => l.words)),
      explanation: `${how} of the header block on page ${page.number}`,
      page: page.number,
      bbox: union(nameLines.map((l) => l.bbox)),
      row: nameLines[0]!.row,
    },
  ];
  const from = addressStart(rows, end, firstAddress);
  if (from >= 0) {
    const block: Row[] = [];
    let afterPostcode = -1;
    for (const row of rows.slice(from)) {
      // "47301" alone under the street is the postcode, not a registration number.
      const postcode = afterPostcode < 0 && block.length > 0 && POSTCODE_ONLY.test(row.text.trim());
      if (row.kind === 'contact' || (row.kind === 'registration' && !postcode) || block.length >= 5 || specks(row.text)) break;
      // "NO7,JLN UERO,SHAH ALAM.": a full stop ends the address unless more of it follows.
      if (afterPostcode < 0 && block.length && FULL_STOP.test(block.at(-1)!.text) && row.kind !== 'address') break;
      // "(MR DIY TESCO TERBAU)" right under the postcode line names the branch at that address.
      const branch = afterPostcode === 0 && branchRemark(row.text);
      if (afterPostcode >= 0 && !branch && (afterPostcode >= AFTER_POSTCODE || /\d/.test(row.text) || row.text.trim().split(/\s+/).length > 3 || hasLabelWord(row.text))) break;
      block.push(row);
      if (afterPostcode >= 0) afterPostcode += 1;
      else if ((isPostcodeLine(row.text) && row.kind === 'address') || postcode) afterPostcode = 0;
    }
    const addressLines = block.flatMap((r) => r.lines);
    out.push({
      field: 'vendor_address',
      value: block.map((r) => r.text.trim().replace(/\s*[:：]$/, '')).join(' '),
      score: receipt ? 0.75 : 0.4,
      textConfidence: meanConfidence(addressLines.flatMap((l) => l.words)),
      explanation: `${block.length} address line${block.length > 1 ? 's' : ''} under the vendor name in the header block on page ${page.number}`,
      page: page.number,
      bbox: union(addressLines.map((l) => l.bbox)),
      belongsTo: out[0]!.value,
    });
  }
  return out;
};
