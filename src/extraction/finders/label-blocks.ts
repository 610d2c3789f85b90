import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { matchLabel } from '../labels.js';
import { union } from '../layout.js';
import { foldPhrase } from '../lexicon.js';
import { isAddressOrContact } from '../patterns.js';
import { isAddressLine } from './header-block.js';
import type { Line, PageText } from '../types.js';
import { readsLikeName } from '../vendor.js';
import { meanConfidence } from './words.js';
import type { Candidate, Finder } from './types.js';

const BLOCK_LINES = 8;
const lexicon = JSON.parse(readFileSync(fileURLToPath(new URL('../lexicon/address.json', import.meta.url)), 'utf8')) as Record<'name_labels' | 'address_labels', string[]>;
const NAME_LABELS = new Set(lexicon.name_labels.map(foldPhrase));
const ADDRESS_LABELS = new Set(lexicon.address_labels.map(foldPhrase));
const SUB_LABEL = /^([\p{L} ]{2,20}?)\s*[:：]\s*(\S.*)$/u;
const PARTY_FIELDS = new Set(['vendor_name', 'customer_name']);

/**
 * The lines under `label` in its column, down to the first wide gap; a line followed on its row by
 * more text ("Nummer" then ": GE2020211") is read with it.
 */
function linesUnder(page: PageText, label: Line): Line[] {
  const out: Line[] = [];
  let bottom = label.bbox.y + label.bbox.height;
  // Where sub-labels hold their values in a column of their own ("Anschrift: | Erfurter Strasse 13"), the value column's later lines belong too.
  let valueX: number | null = null;
  for (let i = 0; i < page.lines.length && out.length < BLOCK_LINES; i += 1) {
    const line = page.lines[i]!;
    if (line.row <= label.row) continue;
    const inColumn = line.bbox.x >= label.bbox.x - 0.02 && line.bbox.x <= label.bbox.x + Math.max(label.bbox.width, 0.15);
    const inValues = valueX !== null && Math.abs(line.bbox.x - valueX) < 0.02 && page.lines[i - 1]?.row !== line.row;
    if (!inColumn && !inValues) continue;
    if (line.bbox.y - bottom > 2.5 * label.bbox.height) break;
    const next = page.lines[i + 1];
    const joined = inColumn && next && next.row === line.row && (/^[:：]/.test(next.text) || /[:：]$/.test(line.text));
    if (joined) valueX = next.bbox.x;
    out.push(joined ? { ...line, text: `${line.text} ${next.text}` } : line);
    bottom = line.bbox.y + line.bbox.height;
  }
  return out;
}

/**
 * A party's block: a seller or buyer label ("Verkäufer:", "Bill to") alone on its line and the
 * lines under it. The party's name is the first line that reads like a name (numbers such as
 * "Kundennummer: 123" or a GLN are skipped), the seller's address the lines after it.
 */
export const partyBlocks: Finder = (ctx) => {
  const out: Candidate[] = [];
  for (const page of ctx.doc.pages) {
    for (const label of page.lines) {
      const match = matchLabel(label.text.replace(/\s*[:：]\s*$/, ''));
      const field = match?.exact ? match.fields.find((f) => PARTY_FIELDS.has(f.field))?.field : undefined;
      if (!field) continue;
      const under = linesUnder(page, label).map((l) => {
        // "Name: ELEKTRON GmbH" and "Anschrift: Erfurter Strasse 13" inside the block: the sub-label goes.
        const sub = SUB_LABEL.exec(l.text);
        return sub && NAME_LABELS.has(foldPhrase(sub[1]!)) ? { ...l, text: sub[2]! } : sub && ADDRESS_LABELS.has(foldPhrase(sub[1]!)) ? { ...l, text: sub[2]!, address: true } : l;
      });
      const at = under.findIndex((l) => readsLikeName(l.text) && !l.text.includes(':'));
      if (at < 0) continue;
      const name = under[at]!;
      const skipped = at > 0 ? `, ${at} line${at > 1 ? 's' : ''} that ${at > 1 ? 'are' : 'is'} not a name skipped` : '';
      out.push({
        field: field as 'vendor_name' | 'customer_name',
        value: name.text.replace(/[,;]$/, ''),
        score: 0.88,
        textConfidence: name.confidence,
        explanation: `first name under the label '${label.text.replace(/\s*[:：]\s*$/, '')}' on page ${page.number}${skipped}`,
        page: page.number,
        bbox: name.bbox,
        row: name.row,
      });
      if (field !== 'vendor_name') continue;
      // The address starts at its street (a contact person's name may stand between) and runs to the postcode line.
      const rest = under.slice(at + 1);
      const from = rest.findIndex((l) => ('address' in l && l.address) || isAddressLine(l.text));
      const address: Line[] = [];
      for (const line of from < 0 ? [] : rest.slice(from)) {
        if (isAddressOrContact(line.text) || address.length >= 3 || (address.length && !isAddressLine(line.text))) break;
        address.push(line);
      }
      if (address.length) {
        out.push({
          field: 'vendor_address',
          // A country code before the postcode ("DE 80333 München") is not printed in the address itself.
          value: address.map((l) => l.text.trim().replace(/^[A-Z]{2}[ -](?=\d{4,5}\b)/, '')).join(', '),
          score: 0.8,
          textConfidence: meanConfidence(address.flatMap((l) => l.words)),
          explanation: `${address.length} line${address.length > 1 ? 's' : ''} under the seller's name on page ${page.number}`,
          page: page.number,
          bbox: union(address.map((l) => l.bbox)),
          belongsTo: name.text.replace(/[,;]$/, ''),
        });
      }
    }
  }
  return out;
};
