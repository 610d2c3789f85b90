import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { foldPhrase } from './lexicon.js';
import { OCR_LANGUAGES, type OcrLanguage } from './ocr-languages.js';
import type { Word } from './types.js';

const labelsDir = fileURLToPath(new URL('./lexicon/labels/', import.meta.url));

/**
 * Per language, the words of its label lexicon that no other language's lexicon has
 * ("rechnung", "betrag", "facture", "montant"): a page read by the English model still spells
 * most of them right, so they tell which language the page is in.
 */
const distinctive: Map<OcrLanguage, Set<string>> = (() => {
  const words = new Map<OcrLanguage, Set<string>>();
  for (const lang of Object.keys(OCR_LANGUAGES) as OcrLanguage[]) {
    const data = JSON.parse(readFileSync(path.join(labelsDir, `${lang}.json`), 'utf8')) as Record<string, string[]>;
    words.set(lang, new Set(Object.values(data).flat().flatMap((phrase) => foldPhrase(phrase).split(' ')).filter((w) => w.length >= 4 && !/\d/.test(w))));
  }
  const seen = new Map<string, number>();
  for (const set of words.values()) for (const w of set) seen.set(w, (seen.get(w) ?? 0) + 1);
  for (const set of words.values()) for (const w of set) if (seen.get(w)! > 1) set.delete(w);
  return words;
})();

/** A page takes another model only on this many of that language's words, more than any other language shows. */
const MIN_WORDS = 3;

/** The language of a page's words among `candidates`, or null when no language stands out. */
export function pageLanguage(words: Word[], candidates: readonly OcrLanguage[]): OcrLanguage | null {
  const tokens = words.flatMap((w) => foldPhrase(w.text).split(' '));
  let best: OcrLanguage | null = null;
  let bestCount = 0;
  let runnerUp = 0;
  for (const lang of candidates) {
    const vocabulary = distinctive.get(lang)!;
    const count = tokens.filter((t) => vocabulary.has(t)).length;
    if (count > bestCount) [best, bestCount, runnerUp] = [lang, count, bestCount];
    else if (count > runnerUp) runnerUp = count;
  }
  return best && bestCount >= MIN_WORDS && bestCount > runnerUp ? best : null;
}
