import safeRegex from 'safe-regex2';

/** Why a template pattern was refused; the message completes "<member path>: ". */
export class PatternError extends Error {}

export interface CompiledPattern {
  regex: RegExp;
  /** Number of capture groups, named ones included. */
  groups: number;
  names: string[];
}

const PY_FLAGS: Record<string, string> = { i: 'i', m: 'm', s: 's', u: '', a: '' };
/** Characters that keep their backslash in a JavaScript `u` pattern; any other escaped punctuation is a literal. */
const SYNTAX = new Set('^$\\.*+?()[]{}|/');
const WORD = '\\p{L}\\p{N}_';
const QUANTIFIER = /^\{(\d*)(,?)(\d*)\}/;

/**
 * Rewrites a Python `re` pattern (the dialect of invoice2data templates) into a JavaScript
 * pattern for the `u` flag. The `u` flag is needed so that `\w` can match accented letters as it
 * does in Python; it also makes JavaScript strict about escapes and braces, which Python is not,
 * hence the rewriting of identity escapes and literal braces.
 */
export function translatePattern(source: string): { source: string; flags: string } {
  let flags = '';
  let ascii = false;
  let rest = source;
  for (let m = /^\(\?([a-zA-Z]+)\)/.exec(rest); m; m = /^\(\?([a-zA-Z]+)\)/.exec(rest)) {
    for (const f of m[1]!) {
      if (!(f in PY_FLAGS)) throw new PatternError(`inline flag (?${f}) is not supported`);
      if (f === 'a') ascii = true;
      if (!flags.includes(PY_FLAGS[f]!)) flags += PY_FLAGS[f];
    }
    rest = rest.slice(m[0].length);
  }

  let out = '';
  let inClass = false;
  let i = 0;
  while (i < rest.length) {
    const c = rest[i]!;
    if (c === '\\') {
      const n = rest[i + 1];
      if (n === undefined) throw new PatternError('pattern ends with a lone backslash');
      i += 2;
      if (n === 'A' && !inClass) out += '(?<![\\s\\S])';
      else if (n === 'Z' && !inClass) out += '(?![\\s\\S])';
      else if (n === 'w' && !ascii) out += inClass ? WORD : `[${WORD}]`;
      else if (n === 'W' && !ascii && !inClass) out += `[^${WORD}]`;
      else if (n === 'N') throw new PatternError('named character escapes (\\N{...}) are not supported');
      else if (/[A-Za-z0-9]/.test(n)) out += `\\${n}`;
      else if (SYNTAX.has(n) || (inClass && n === '-')) out += `\\${n}`;
      else out += n;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      i += 1;
      continue;
    }
    if (c === '[') {
      inClass = true;
      const negated = rest[i + 1] === '^';
      out += negated ? '[^' : '[';
      i += negated ? 2 : 1;
      // Python reads a "]" right after the opening bracket as a literal.
      if (rest[i] === ']') {
        out += '\\]';
        i += 1;
      }
      continue;
    }
    if (c === ']' || c === '}') {
      out += `\\${c}`;
      i += 1;
      continue;
    }
    if (c === '{') {
      const q = QUANTIFIER.exec(rest.slice(i));
      if (q && (q[1] || q[3]) && !(q[2] === '' && q[3])) {
        out += q[1] ? q[0] : `{0,${q[3]}}`;
        i += q[0].length;
      } else {
        out += '\\{';
        i += 1;
      }
      continue;
    }
    if (c === '(' && rest[i + 1] === '?') {
      const head = rest.slice(i + 2);
      const named = /^P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(head);
      const backref = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(head);
      if (named) {
        out += `(?<${named[1]}>`;
        i += 2 + named[0].length;
      } else if (backref) {
        out += `\\k<${backref[1]}>`;
        i += 2 + backref[0].length;
      } else if (head.startsWith('#')) {
        const close = rest.indexOf(')', i);
        if (close < 0) throw new PatternError('unterminated comment group');
        i = close + 1;
      } else if (/^(:|=|!|<=|<!|<[A-Za-z_])/.test(head)) {
        out += '(?';
        i += 2;
      } else if (head.startsWith('(')) {
        throw new PatternError('conditional groups (?(...)...) are not supported');
      } else if (head.startsWith('>')) {
        throw new PatternError('atomic groups (?>...) are not supported');
      } else if (/^[a-zA-Z-]+[:)]/.test(head)) {
        throw new PatternError('inline flags are only supported at the start of the pattern, as in (?i)');
      } else {
        throw new PatternError(`unsupported group syntax (?${head.slice(0, 3)}`);
      }
      continue;
    }
    out += c;
    i += 1;
  }
  return { source: out, flags };
}

/** Counts capture groups by compiling an alternation with the empty pattern: it always matches and reports every group. */
function groupsOf(regex: RegExp): { groups: number; names: string[] } {
  const probe = new RegExp(`${regex.source}|`, regex.flags).exec('')!;
  return { groups: probe.length - 1, names: Object.keys(probe.groups ?? {}) };
}

/** Drops `?` quantifiers: an optional part cannot repeat, so it adds no star height, yet safe-regex2 counts it as a repetition. */
function withoutOptionals(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '\\') {
      out += c + (source[i + 1] ?? '');
      i += 1;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '?' && !/[(*+?}]/.test(source[i - 1] ?? '(')) {
      continue;
    } else {
      out += c;
    }
  }
  return out;
}

/** Character sets that split text into runs: each pairs a set (side 0) with its complement (side 1). */
const RUN_ATOMS: Record<string, { family: string; side: number }> = {
  '\\s': { family: 'space', side: 0 },
  ' ': { family: 'space', side: 0 },
  '\\S': { family: 'space', side: 1 },
  '\\d': { family: 'digit', side: 0 },
  '\\D': { family: 'digit', side: 1 },
  [`[${WORD}]`]: { family: 'word', side: 0 },
  [`[^${WORD}]`]: { family: 'word', side: 1 },
};
const RUN_ATOM = /(\\[sSdD]| |\[\\p\{L\}\\p\{N\}_\]|\[\^\\p\{L\}\\p\{N\}_\])(\+|\{[1-9]\d*(?:,\d*)?\})?/y;
/** A group (its parenthesis not escaped) without inner groups, followed by a repeating quantifier. */
const REPEATED_GROUP = /(?<!\\)\((?:\?:|\?<[A-Za-z_]\w*>)?([^()]*)\)(?=[*+]|\{\d*,?\d*\})/g;

/**
 * Whether every iteration of a loop over `body` is cut from the text one way only: the body is
 * a sequence of atoms, each a set or its complement (`\s`/`\S`, `\d`/`\D`, `\w`/`\W`, a space
 * counting as `\s`), repeated at least once, alternating sides and ending on the side it does not
 * start with, as in `(?:\s+\S+)*`. Adjacent atoms then match disjoint characters, so each atom
 * spans exactly one run of its side and an iteration boundary can only fall where a run of the
 * last side meets one of the first: the loop is unambiguous and cannot backtrack exponentially.
 */
function unambiguousLoop(body: string): boolean {
  const sides: number[] = [];
  let family = '';
  RUN_ATOM.lastIndex = 0;
  while (RUN_ATOM.lastIndex < body.length) {
    const m = RUN_ATOM.exec(body);
    if (!m) return false;
    const atom = RUN_ATOMS[m[1]!]!;
    if (family && atom.family !== family) return false;
    family = atom.family;
    if (sides.length && sides.at(-1) === atom.side) return false;
    sides.push(atom.side);
  }
  return sides.length >= 2 && sides[0] !== sides.at(-1);
}

/** Loops `unambiguousLoop` proves safe, with their body reduced to one atom, so their inner quantifiers add no star height. */
function withoutUnambiguousLoops(source: string): string {
  return source.replace(REPEATED_GROUP, (group, body: string) => (unambiguousLoop(body) ? '(?:a)' : group));
}

/**
 * safe-regex2 (star height: it refuses a quantifier nested inside another repeated group, and
 * more than `limit` quantifiers) is used because it is pure JavaScript, already a dependency,
 * fast enough to run on every template save, and errs on the side of refusing: every exponential
 * backtracking shape such as `(a+)+` has star height 2. RE2 would make the question moot but its
 * package needs a native build this service cannot assume; `recheck` is more precise but takes
 * tens of milliseconds to seconds a pattern. The detector's parser does not know lookbehind or
 * `\p{...}`, which cannot add star height, so they are neutralised before the check.
 * Star height alone refuses loops such as `(\S+(?:\s\S+)*)` (words separated by single spaces),
 * which many invoice2data templates use and which cannot backtrack exponentially, because
 * exponential backtracking needs a loop whose iterations can be cut from the text in more than
 * one way; `withoutUnambiguousLoops` proves that cannot happen for loops over alternating runs
 * of a set and its complement, and only those are let through.
 */
export function isLinearSafe(jsSource: string): boolean {
  const checked = withoutOptionals(withoutUnambiguousLoops(jsSource)).replace(/\(\?<[=!]/g, '(?:').replace(/\\[pP]\{[^}]*\}/g, 'a');
  return safeRegex(checked, { limit: 40 });
}

/** Translates, compiles and checks a template pattern; `extraFlags` such as "g" or "gd" for the caller's way of searching. */
export function compilePattern(source: string, extraFlags = ''): CompiledPattern {
  const translated = translatePattern(source);
  let regex: RegExp;
  try {
    regex = new RegExp(translated.source, `${translated.flags}u${extraFlags}`);
  } catch (err) {
    throw new PatternError(`invalid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
  }
  if (!isLinearSafe(translated.source)) {
    throw new PatternError('regular expression may backtrack catastrophically (a quantifier nested in a quantified group, or too many quantifiers); rewrite it without nested repetition');
  }
  return { regex, ...groupsOf(regex) };
}

/** Python `re.sub` replacement syntax (`\1`, `\g<name>`) to the JavaScript one. */
export function translateReplacement(replacement: string): string {
  return replacement
    .replace(/\$/g, '$$$$')
    .replace(/\\g<(\w+)>/g, (_, g: string) => (/^\d+$/.test(g) ? `$${g}` : `$<${g}>`))
    .replace(/\\(\d{1,2})/g, '$$$1')
    .replace(/\\n/g, '\n')
    .replace(/\\t/g, '\t');
}

const cache = new Map<string, CompiledPattern>();
/** Bounds the memory of the cache; templates are few, so it is rarely reached. */
const CACHE_LIMIT = 5000;

/** `compilePattern` for patterns already validated when their template was saved, compiled once. */
export function cachedPattern(source: string, extraFlags = ''): CompiledPattern {
  const key = `${extraFlags}\u0000${source}`;
  let compiled = cache.get(key);
  if (!compiled) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    compiled = compilePattern(source, extraFlags);
    cache.set(key, compiled);
  }
  return compiled;
}
