import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Label lexicons: for each language a data file (`lexicon/labels/<lang>.json`) mapping a field
 * name to the phrases that introduce it. Adding a language or a synonym is editing data. Phrases
 * are compared folded (see `foldPhrase`), so files may write them with accents and punctuation.
 */

/** Words shorter than this are too many letters alike to say which one OCR misread ("tax", "tai"). */
const MISREAD_MIN = 5;

/** One lexicon phrase: the words it is made of and the fields it may introduce, in the files' order. */
interface Entry {
  words: string[];
  fields: string[];
}

export interface PhraseMatch {
  /** Fields the matched phrase introduces, the first the likeliest. */
  fields: string[];
  /** The whole phrase is a lexicon entry (not only contains one). */
  exact: boolean;
  /** The lexicon phrase found. */
  entry: string;
  /** 0-1: how much of the phrase the entry covers; 1 for an exact match. */
  coverage: number;
}

/**
 * A phrase as lexicons compare it: lower case, accents and `ß` folded, every run of other
 * characters one space. The caller has already reduced label syntax (see `normaliseLabel`).
 */
export function foldPhrase(phrase: string): string {
  return phrase
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    // Letters NFD does not take apart: "zapłaty", "Bjørn", "Œuvre".
    .replace(/[łđøæœ]/g, (c) => ({ ł: 'l', đ: 'd', ø: 'o', æ: 'ae', œ: 'oe' })[c]!)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Label syntax a lexicon removes from phrases before folding them. */
export type Reducer = (phrase: string) => string;

/**
 * A lexicon over the label files in `dir`. `reduce` is applied to every phrase, the files' and
 * the documents' alike, before folding (label syntax such as "#" or "Nr." for "no").
 */
export function loadLexicon(dir: string, reduce: Reducer): { match(phrase: string): PhraseMatch | null; hasWord(word: string): boolean; misread(word: string): string | null } {
  const byFirstWord = new Map<string, Entry[]>();
  const exact = new Map<string, Entry>();
  /** Entries by their letters alone: PDFs that place glyphs one by one print "Ver käufer" for "Verkäufer". */
  const spaceless = new Map<string, Entry>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Record<string, string[]>;
    for (const [field, phrases] of Object.entries(data)) {
      for (const phrase of phrases) {
        const key = foldPhrase(reduce(phrase));
        if (!key) continue;
        let entry = exact.get(key);
        if (!entry) {
          entry = { words: key.split(' '), fields: [] };
          exact.set(key, entry);
          const first = entry.words[0]!;
          byFirstWord.set(first, [...(byFirstWord.get(first) ?? []), entry]);
        }
        if (!entry.fields.includes(field)) entry.fields.push(field);
        if (!spaceless.has(key.replace(/ /g, ''))) spaceless.set(key.replace(/ /g, ''), entry);
      }
    }
  }

  const vocabulary = new Set([...exact.values()].flatMap((entry) => entry.words));
  /** Vocabulary words of MISREAD_MIN letters or more by each way of blanking one of their letters ("t?tal"). */
  const blanked = new Map<string, Set<string>>();
  for (const word of vocabulary) {
    if (word.length < MISREAD_MIN || !/^\p{L}+$/u.test(word)) continue;
    for (let i = 0; i < word.length; i += 1) {
      const key = `${word.slice(0, i)}?${word.slice(i + 1)}`;
      blanked.set(key, (blanked.get(key) ?? new Set()).add(word));
    }
  }
  return {
    /** Whether a word (reduced and folded as phrases are) is part of any entry. */
    hasWord: (word) => vocabulary.has(foldPhrase(reduce(word))),
    /** The one vocabulary word that a word not in it becomes with one letter changed ("tatal": "total"), if there is exactly one. */
    misread(word) {
      const folded = foldPhrase(word);
      if (folded.length < MISREAD_MIN || folded.length !== word.length || vocabulary.has(folded)) return null;
      const found = new Set<string>();
      for (let i = 0; i < folded.length; i += 1) for (const w of blanked.get(`${folded.slice(0, i)}?${folded.slice(i + 1)}`) ?? []) found.add(w);
      return found.size === 1 ? [...found][0]! : null;
    },
    /** The entry equal to the phrase, else the longest entry the phrase contains as whole words. */
    match(phrase) {
      const key = foldPhrase(reduce(phrase));
      if (!key) return null;
      const whole = exact.get(key) ?? spaceless.get(key.replace(/ /g, ''));
      if (whole) return { fields: whole.fields, exact: true, entry: whole.words.join(' '), coverage: 1 };
      const words = key.split(' ');
      let best: Entry | null = null;
      for (let i = 0; i < words.length; i += 1) {
        for (const entry of byFirstWord.get(words[i]!) ?? []) {
          if (best && entry.words.length <= best.words.length) continue;
          if (i + entry.words.length > words.length) continue;
          if (entry.words.every((w, k) => words[i + k] === w)) best = entry;
        }
      }
      if (!best) return null;
      return { fields: best.fields, exact: false, entry: best.words.join(' '), coverage: best.words.length / words.length };
    },
  };
}

/** The directory of a lexicon kind (`labels`, `columns`) beside this module. */
export function lexiconDir(kind: string): string {
  return fileURLToPath(new URL(`./lexicon/${kind}`, import.meta.url));
}
