import { fieldsForLabel, isKnownLabel, startsWithTitle, withoutTrailingTitle } from './labels.js';
import { sameRow, union } from './layout.js';
import { hasLegalForm, isLegalFormOnly, NAMED_COMPANY, withoutLegalForm } from './legal-forms.js';
import { parseDate } from './normalise.js';
import { EMAIL, isAddressOrContact } from './patterns.js';
import type { Located } from './finders/types.js';
import type { DocumentText, FoundField, LabelValue, Line, PageText, Word } from './types.js';

export interface Vendor {
  name: FoundField;
  address: FoundField | null;
}

/** A bank named in the payment details has a legal form too, but it is not the vendor. */
const BANK = /\b(?:bank|banque|banco|banca|sparkasse|volksbank|raiffeisen)/i;
/** Whoever receives the payment is, on an invoice, the vendor. */
const PAYEE = /^(account holder|account name|beneficiary|payee|kontoinhaber|zahlungsempfänger|titulaire du compte|bénéficiaire|rekeninghouder|begunstigde|ten name van|intestatario|beneficiario|titular)\s*[:：]\s*(\S.*)$/iu;
/** Labels of the blocks that name whom the goods or the invoice go to, beyond the customer labels. */
const RECIPIENT = /^(?:ship(?:ped)? to|deliver(?:ed)? to|shipping address|delivery address|lieferadresse|lieferanschrift|adresse de livraison|afleveradres|dirección de envío|indirizzo di consegna)$/iu;
/** Headings of a line-item table's columns, alone or a few together ("Item", "Unit Price", "Qty"). */
export const COLUMN_HEADING = /^(?:(?:items?|description|article|product|service|qty|quantity|units?|uom|unit price|price|rate|amount|discount|hours|pos|artikel|beschreibung|bezeichnung|menge|einzelpreis|preis|betrag|désignation|quantité|qté|prix unitaire|prix|montant|omschrijving|aantal|prijs|bedrag|descripción|cantidad|precio|importe|descrizione|quantità|prezzo|importo)\.?\s*)+:?$/iu;
const SEPARATOR = /^[-–—−|·•]$/;
const HOST = /\b(?:https?:\/\/)?(?:www\.)?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:com|net|org|biz|info|io|co|eu|de|at|ch|fr|be|nl|lu|uk|ie|es|pt|it|pl|cz|sk|se|dk|no|fi|us|ca|au|nz|in|sg|hk|jp))\b/gi;
/** Mailbox providers: their domain names the mailbox's owner only when they are the provider. */
const WEBMAIL = new Set(['gmail', 'googlemail', 'yahoo', 'ymail', 'hotmail', 'outlook', 'live', 'msn', 'icloud', 'me', 'aol', 'gmx', 'web', 'mail', 'protonmail', 'proton', 't-online', 'orange', 'wanadoo', 'libero', 'yandex', 'qq']);

/** A run of words of one line, between separators such as " - " or " | ". */
interface Segment {
  page: number;
  line: Line;
  words: Word[];
  text: string;
}

interface Signal {
  /** How much the signal counts when candidates compete. */
  weight: number;
  /** The confidence the signal alone would give. */
  confidence: number;
  says: string;
}

interface Candidate {
  key: string;
  value: string;
  page: number;
  line: Line;
  words: Word[];
  signals: Signal[];
}

interface Domain {
  /** The name part of the domain, letters and digits only: "azureinterior" for www.azure-interior.com. */
  name: string;
  host: string;
}

/** The name without its legal form, case or punctuation: "Amazon Web Services, Inc." and "AMAZON WEB SERVICES" share it. */
export function keyOf(name: string): string {
  return withoutLegalForm(name)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Whether two names name one company: the same key, or a brand and the legal name that begins with it ("Banh Mi Cafe", "BANH MI CAFE SDN BHD"). */
export function sameCompany(a: string, b: string): boolean {
  const [ka, kb] = [keyOf(a), keyOf(b)];
  return ka === kb || ka.startsWith(`${kb} `) || kb.startsWith(`${ka} `);
}

export function readsLikeName(text: string): boolean {
  const words = text.split(/\s+/);
  // A word of two letters at least: letters standing alone are a spaced-out title or a logo read
  // letter by letter ("I N V O I C E" read as "N V"), not a name.
  if (!words.some((w) => w.replace(/[^\p{L}]/gu, '').length >= 2) || words.length > 8 || /^[\d#(]/.test(text)) return false;
  if (startsWithTitle(text) || isKnownLabel(text) || COLUMN_HEADING.test(text) || isAddressOrContact(text) || parseDate(text)) return false;
  return !words.some((w) => /^\d{2,}$/.test(w)) && !(words.length === 1 && /\d/.test(text));
}

/** The words of `words` (joined by single spaces) that hold the characters from `start` to `end`. */
function wordsBetween(words: Word[], start: number, end: number): Word[] {
  let offset = 0;
  return words.filter((word) => {
    const from = offset;
    offset += word.text.length + 1;
    return from + word.text.length > start && from < end;
  });
}

function meanConfidence(words: Word[]): number {
  return words.reduce((sum, w) => sum + w.confidence, 0) / (words.length || 1);
}

function lineOf(words: Word[], row: number): Line {
  return { text: words.map((w) => w.text).join(' '), row, words, bbox: union(words.map((w) => w.bbox)), confidence: meanConfidence(words) };
}

/**
 * A line's words as text rows: a line joined beside a taller word can hold a name and the street
 * under it ("Coolblue Weena 664 B.V."), which are read apart.
 */
function bands(line: Line): Line[] {
  const groups: Word[][] = [];
  // Each word is compared with the nearest word left of it in a band, so a skewed scan stays one band.
  for (const word of [...line.words].sort((a, b) => a.bbox.x - b.bbox.x)) {
    const group = groups.find((g) => sameRow(g.at(-1)!.bbox, word.bbox));
    if (group) group.push(word);
    else groups.push([word]);
  }
  if (groups.length === 1) return [line];
  return groups.map((g) => lineOf(g, line.row));
}

function segmentsOf(page: number, line: Line): Segment[] {
  const segments: Segment[] = [];
  let words: Word[] = [];
  for (const word of [...line.words, null]) {
    if (word && !SEPARATOR.test(word.text)) {
      words.push(word);
      continue;
    }
    if (words.length) segments.push({ page, line, words, text: words.map((w) => w.text).join(' ') });
    words = [];
  }
  return segments;
}

function where(page: number, line: Line): { says: string; edge: boolean } {
  if (line.bbox.y > 0.8) return { says: `in the footer of page ${page}`, edge: true };
  if (page === 1 && line.bbox.y < 0.3) return { says: 'at the top of page 1', edge: true };
  return { says: `on page ${page}`, edge: false };
}

/** A customer or delivery label and the lines under it, in its column, down to the first wide gap. */
export function recipientLines(page: PageText): Set<Line> {
  const inBlock = new Set<Line>();
  for (const label of page.lines) {
    const phrase = label.text.replace(/\s*[:：]\s*$/, '');
    if (!RECIPIENT.test(phrase) && !fieldsForLabel(phrase).some((f) => f.field === 'customer_name')) continue;
    inBlock.add(label);
    let bottom = label.bbox.y + label.bbox.height;
    for (const line of page.lines) {
      if (line.row <= label.row || line.bbox.x < label.bbox.x - 0.02 || line.bbox.x > label.bbox.x + Math.max(label.bbox.width, 0.2)) continue;
      if (line.bbox.y - bottom > 2 * label.bbox.height) break;
      inBlock.add(line);
      bottom = line.bbox.y + line.bbox.height;
    }
  }
  return inBlock;
}

function domainsOf(lines: Segment[]): Domain[] {
  const domains = new Map<string, Domain>();
  const add = (written: string, fromMail: boolean) => {
    const host = written.toLowerCase();
    const parts = host.split('.').slice(0, -1);
    if (parts.length > 1 && /^(?:co|com|org|net|ac|gov|edu)$/.test(parts.at(-1)!)) parts.pop();
    const label = parts.at(-1) ?? '';
    const name = label.replace(/[^a-z0-9]/g, '');
    if (name.length < 3 || (fromMail && WEBMAIL.has(label))) return;
    if (!domains.has(name)) domains.set(name, { name, host });
  };
  for (const { text } of lines) {
    // The e-mail pattern is costly to try at every word; without an '@' it cannot match.
    const mails = text.includes('@') ? [...text.matchAll(EMAIL)] : [];
    for (const mail of mails) add(mail[0].split('@')[1]!, true);
    for (const web of (mails.length ? text.replace(EMAIL, ' ') : text).matchAll(HOST)) add(web[1]!, false);
  }
  return [...domains.values()];
}

function domainSignal(key: string, domains: Domain[]): Signal | null {
  const words = key.split(' ');
  for (const domain of domains) {
    if (words.join('') === domain.name) return { weight: 2, confidence: 75, says: `matches the domain ${domain.host}` };
    for (let k = 1; k < words.length; k += 1) {
      if (words.slice(0, k).join('') === domain.name) return { weight: 1, confidence: 60, says: `begins with the name in the domain ${domain.host}` };
    }
  }
  return null;
}

/**
 * The vendor's name when no label gives it, from independent signals that add up: a company's
 * legal form (at the top of the first page or in a footer), the name of the web or e-mail domain
 * the document gives, the holder of the account to pay into, and the most prominent line at the
 * top of the first page. Lines in the customer's or the delivery block, titles, labels, table
 * column headings, dates, amounts, addresses and contact details are never names.
 */
export function findVendor(doc: DocumentText, pairs: LabelValue[], excluded: (l: Located) => boolean): Vendor | null {
  const labelled = new Set(pairs.filter((p) => !fieldsForLabel(p.label).some((f) => f.field === 'vendor_name')).flatMap((p) => p.valueWords));
  const recipients = new Set(doc.pages.flatMap((page) => [...recipientLines(page)]));
  const segments = doc.pages.flatMap((page) =>
    page.lines.filter((line) => !recipients.has(line) && !excluded({ page: page.number, line })).flatMap((line) => bands(line).flatMap((band) => segmentsOf(page.number, band))),
  );
  const isValue = (words: Word[]) => words.some((w) => labelled.has(w));

  const candidates = new Map<string, Candidate>();
  const add = (segment: Segment, value: string, words: Word[], signal: Signal | null) => {
    const key = keyOf(value);
    if (!key) return;
    const current = candidates.get(key);
    if (!current) {
      candidates.set(key, { key, value, page: segment.page, line: segment.line, words, signals: signal ? [signal] : [] });
      return;
    }
    if (signal) current.signals.push(signal);
    if (hasLegalForm(value) && !hasLegalForm(current.value)) Object.assign(current, { value, page: segment.page, line: segment.line, words });
  };

  const prominent = mostProminent(doc.pages[0], segments, isValue);
  if (prominent) {
    const value = withoutTrailingTitle(prominent.text);
    add(prominent, value, wordsBetween(prominent.words, 0, value.length), { weight: 1, confidence: 60, says: 'most prominent line at the top of page 1' });
  }

  for (const segment of segments) {
    const company = segment.text.match(NAMED_COMPANY);
    if (company) {
      const [whole, name, form] = [company[0], company[1]!, company[2]!];
      const rest = segment.text.slice(whole.length);
      const bareForm = /^[A-Z]{2}$/.test(form) && /\p{L}/u.test(rest);
      if (name.split(' ').length <= 6 && segment.words.length <= 10 && readsLikeName(whole) && !BANK.test(name) && !bareForm && !isLegalFormOnly(whole) && !isValue(segment.words)) {
        const at = where(segment.page, segment.line);
        const signal = { weight: at.edge ? 1.5 : 1, confidence: at.edge ? 70 : 60, says: `company form '${form}' ${at.says}` };
        add(segment, whole, wordsBetween(segment.words, 0, whole.length), signal);
      }
    }
    const payee = segment.text.match(PAYEE);
    if (payee && readsLikeName(payee[2]!.trim())) {
      const start = segment.text.length - payee[2]!.length;
      add(segment, payee[2]!.trim(), wordsBetween(segment.words, start, segment.text.length), { weight: 2, confidence: 70, says: `named as '${payee[1]}' on page ${segment.page}` });
    }
  }

  const domains = domainsOf(segments);
  for (const segment of segments) {
    if (readsLikeName(segment.text) && domains.some((d) => keyOf(segment.text).replace(/ /g, '') === d.name)) add(segment, segment.text, segment.words, null);
  }
  for (const candidate of candidates.values()) {
    const signal = domainSignal(candidate.key, domains);
    if (signal) candidate.signals.push(signal);
  }
  absorbBrands(candidates);

  let best: { candidate: Candidate; weight: number } | null = null;
  for (const candidate of candidates.values()) {
    const weight = candidate.signals.reduce((sum, s) => sum + s.weight, 0);
    if (weight > 0 && (!best || weight > best.weight)) best = { candidate, weight };
  }
  if (!best) return null;
  const { value, page, line, words, signals } = best.candidate;
  const base = Math.min(90, Math.max(...signals.map((s) => s.confidence)) + 5 * (signals.length - 1));
  return {
    name: {
      field: 'vendor_name',
      value: value.replace(/[,;]$/, ''),
      confidence: Math.round(base * (meanConfidence(words) / 100)),
      explanation: `${explain(signals)} (no vendor label)`,
      page,
      bbox: union(words.map((w) => w.bbox)),
    },
    address: findAddress(doc.pages.find((p) => p.number === page)!, line),
  };
}

/**
 * A brand ("amazon" in a logo) counts for the one legal name that begins with it ("Amazon Web
 * Services, Inc."): the same company, named in full.
 */
function absorbBrands(candidates: Map<string, Candidate>): void {
  for (const brand of [...candidates.values()]) {
    if (hasLegalForm(brand.value)) continue;
    const full = [...candidates.values()].filter((c) => c.key.startsWith(`${brand.key} `) && hasLegalForm(c.value));
    if (full.length !== 1) continue;
    full[0]!.signals.push(...brand.signals);
    candidates.delete(brand.key);
  }
}

/** The three strongest signals, in words; a name repeated on every page need not be told page by page. */
function explain(signals: Signal[]): string {
  const said = [...new Set([...signals].sort((a, b) => b.weight - a.weight).map((s) => s.says))];
  const more = said.length - 3;
  return said.slice(0, 3).join('; ') + (more > 0 ? `; and ${more} more mention${more > 1 ? 's' : ''}` : '');
}

/**
 * The tallest name-like line in the top part of the first page, nearer the top the better; only
 * from the letterhead zone or taller than the page's usual text, so a table header never wins.
 */
function mostProminent(first: PageText | undefined, segments: Segment[], isValue: (words: Word[]) => boolean): Segment | null {
  if (!first) return null;
  const heights = first.lines.map((l) => l.bbox.height).sort((a, b) => a - b);
  const usual = heights[Math.floor(heights.length / 2)] ?? 0;
  let best: { score: number; segment: Segment } | null = null;
  for (const segment of segments) {
    const { bbox } = segment.line;
    if (segment.page !== first.number || segment.words.length !== segment.line.words.length || bbox.y > 0.4) continue;
    if ((bbox.y >= 0.2 && bbox.height < 1.15 * usual) || !readsLikeName(segment.text) || isValue(segment.words)) continue;
    const score = bbox.height * (1 - 0.5 * bbox.y);
    if (!best || score > best.score) best = { score, segment };
  }
  return best?.segment ?? null;
}

/** The address block: up to three lines directly under the vendor name, aligned with it. */
function findAddress(page: PageText, vendorLine: Line): FoundField | null {
  const block: Line[] = [];
  let previous = vendorLine;
  for (const line of page.lines) {
    if (line.row <= vendorLine.row || block.length >= 3) continue;
    const aligned = Math.abs(line.bbox.x - vendorLine.bbox.x) < 0.03;
    const close = line.bbox.y - (previous.bbox.y + previous.bbox.height) < 1.6 * previous.bbox.height;
    if (!aligned) continue;
    if (!close || isAddressOrContact(line.text) || isKnownLabel(line.text) || startsWithTitle(line.text)) break;
    block.push(line);
    previous = line;
  }
  if (!block.length) return null;
  return {
    field: 'vendor_address',
    value: block.map((l) => l.text.trim()).join(', '),
    confidence: Math.round(65 * (meanConfidence(block.flatMap((l) => l.words)) / 100)),
    explanation: `${block.length} line${block.length > 1 ? 's' : ''} under the vendor name on page ${page.number}`,
    page: page.number,
    bbox: union(block.map((l) => l.bbox)),
  };
}
