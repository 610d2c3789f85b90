import { isKnownLabel, isLabelPhrase, mendLabelWords } from '../labels.js';
import { findPairs } from '../layout.js';
import { dateOrderOf } from '../normalise.js';
import { documentText } from '../text.js';
import type { DocumentText, LabelValue, Line, PageText, Word } from '../types.js';
import { recipientLines } from '../vendor.js';
import { documentTypeOf } from '../document-type.js';
import { mendSlips } from './ocr-slips.js';
import type { FinderContext, Located, Row } from './types.js';

/** Letters OCR takes for one another, by their shapes: a stroke, a round letter, an arch. */
const LOOK_ALIKE = ['il1|!tfj', 'oae0cq', 'hb', 'nu'];

/** Whether every letter the mending changed was changed into one of like shape ("UStld" into "UStid", not "Bandar" into "Bundar"). */
function alike(read: string, meant: string): boolean {
  return [...read.toLowerCase()].every((c, i) => {
    const m = meant[i]!.toLowerCase();
    return c === m || LOOK_ALIKE.some((group) => group.includes(c) && group.includes(m));
  });
}

/**
 * Label/value pairs of a page read by OCR, where a phrase that is no label becomes one with a
 * letter of its words read as the letter of like shape that makes it a label word ("UStld" for
 * "UStId", as amounts and dates are read: `mended`), and the pair is labelled as meant. Only a
 * phrase that is then exactly a label: words a letter away from a label word are common
 * ("Bandar" in a Malay address, one letter from "bundar", rounding; "partir" in French).
 */
function ocrPairs(page: PageText, isLabel: (phrase: string) => boolean): LabelValue[] {
  // Layout asks about each phrase several times, and the pairs' labels are phrases it asked about.
  const meant = new Map<string, string | null>();
  const misread = (phrase: string) => {
    if (!meant.has(phrase)) {
      const mended = mendLabelWords(phrase);
      meant.set(phrase, mended !== phrase && alike(phrase, mended) && isKnownLabel(mended) ? mended : null);
    }
    return meant.get(phrase)!;
  };
  return findPairs(page, (phrase) => isLabel(phrase) || misread(phrase) !== null).map((pair) => ({ ...pair, label: misread(pair.label) ?? pair.label }));
}

/** Everything finders share, worked out once per document. */
export function finderContext(doc: DocumentText): FinderContext & { documentTypeSays: string } {
  const text = documentText(doc);
  // Layout asks about the same short phrases again and again (every line prefix), so answers are kept per document.
  const answers = new Map<string, boolean>();
  const isLabel = (phrase: string) => answers.get(phrase) ?? answers.set(phrase, isLabelPhrase(phrase)).get(phrase)!;
  const lines: Located[] = doc.pages.flatMap((page) => page.lines.map((line) => ({ page: page.number, line })));
  const byWord = new Map<Word, Located>();
  for (const located of lines) for (const word of located.line.words) byWord.set(word, located);
  const rows: Row[] = [];
  for (const { page, line } of lines) {
    const last = rows.at(-1);
    if (last && last.page === page && last.row === line.row) {
      last.lines.push(line);
      last.text += ` ${line.text}`;
    } else rows.push({ page, row: line.row, lines: [line], text: line.text });
  }
  const recipients = new Set<Line>(doc.pages.flatMap((page) => [...recipientLines(page)]));
  const { type, says } = documentTypeOf(doc, text);
  const ocrPages = new Set(doc.pages.filter((p) => p.source === 'ocr').map((p) => p.number));
  return {
    doc,
    text,
    order: dateOrderOf(text),
    documentType: type,
    documentTypeSays: says,
    isLabel,
    pairs: doc.pages.flatMap((page) => (page.source === 'ocr' ? ocrPairs(page, isLabel) : findPairs(page, isLabel))),
    lines,
    rows,
    lineOf: (word) => byWord.get(word),
    inRecipientBlock: (l) => recipients.has(l.line),
    ocr: (page) => ocrPages.has(page),
    mended: (page, line) => (ocrPages.has(page) ? mendLabelWords(mendSlips(line)) : line),
  };
}
