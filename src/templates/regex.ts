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

/** A translated pattern with, for each of its characters, the span of the original pattern it comes from. */
interface Translation {
  source: string;
  flags: string;
  /** `from[j]`/`to[j]`: the span of the original pattern that character j of `source` was written from. */
  from: number[];
  to: number[];
}

/**
 * Rewrites a Python `re` pattern (the dialect of invoice2data templates) into a JavaScript
 * pattern for the `u` flag. The `u` flag is needed so that `\w` can match accented letters as it
 * does in Python; it also makes JavaScript strict about escapes and braces, which Python is not,
 * hence the rewriting of identity escapes and literal braces.
 */
export function translatePattern(source: string): { source: string; flags: string } {
  const { source: out, flags } = translateMapped(source);
  return { source: out, flags };
}

function translateMapped(source: string): Translation {
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
  const offset = source.length - rest.length;

  let out = '';
  const from: number[] = [];
  const to: number[] = [];
  /** Appends `text`, written from `rest[a..b)`. */
  const put = (text: string, a: number, b: number) => {
    out += text;
    for (let k = 0; k < text.length; k += 1) {
      from.push(offset + a);
      to.push(offset + b);
    }
  };
  let inClass = false;
  let i = 0;
  while (i < rest.length) {
    const c = rest[i]!;
    const at = i;
    if (c === '\\') {
      const n = rest[i + 1];
      if (n === undefined) throw new PatternError('pattern ends with a lone backslash');
      i += 2;
      if (n === 'A' && !inClass) put('(?<![\\s\\S])', at, i);
      else if (n === 'Z' && !inClass) put('(?![\\s\\S])', at, i);
      else if (n === 'w' && !ascii) put(inClass ? WORD : `[${WORD}]`, at, i);
      else if (n === 'W' && !ascii && !inClass) put(`[^${WORD}]`, at, i);
      else if (n === 'N') throw new PatternError('named character escapes (\\N{...}) are not supported');
      else if (/[A-Za-z0-9]/.test(n)) put(`\\${n}`, at, i);
      else if (SYNTAX.has(n) || (inClass && n === '-')) put(`\\${n}`, at, i);
      else put(n, at, i);
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      put(c, at, i + 1);
      i += 1;
      continue;
    }
    if (c === '[') {
      inClass = true;
      const negated = rest[i + 1] === '^';
      i += negated ? 2 : 1;
      put(negated ? '[^' : '[', at, i);
      // Python reads a "]" right after the opening bracket as a literal.
      if (rest[i] === ']') {
        put('\\]', i, i + 1);
        i += 1;
      }
      continue;
    }
    if (c === ']' || c === '}') {
      put(`\\${c}`, at, i + 1);
      i += 1;
      continue;
    }
    if (c === '{') {
      const q = QUANTIFIER.exec(rest.slice(i));
      if (q && (q[1] || q[3]) && !(q[2] === '' && q[3])) {
        i += q[0].length;
        put(q[1] ? q[0] : `{0,${q[3]}}`, at, i);
      } else {
        put('\\{', at, i + 1);
        i += 1;
      }
      continue;
    }
    if (c === '(' && rest[i + 1] === '?') {
      const head = rest.slice(i + 2);
      const named = /^P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(head);
      const backref = /^P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(head);
      if (named) {
        i += 2 + named[0].length;
        put(`(?<${named[1]}>`, at, i);
      } else if (backref) {
        i += 2 + backref[0].length;
        put(`\\k<${backref[1]}>`, at, i);
      } else if (head.startsWith('#')) {
        const close = rest.indexOf(')', i);
        if (close < 0) throw new PatternError('unterminated comment group');
        i = close + 1;
      } else if (/^(:|=|!|<=|<!|<[A-Za-z_])/.test(head)) {
        put('(?', at, i + 2);
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
    put(c, at, i + 1);
    i += 1;
  }
  return { source: out, flags, from, to };
}

/**
 * Counts the capture groups of a translated pattern that compiled, by reading it: running it
 * (on the empty text, in an alternation with the empty pattern) would run a user's pattern on the
 * event loop, which some patterns take minutes to fail on even there.
 */
function groupsOf(source: string): { groups: number; names: string[] } {
  let groups = 0;
  const names: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '\\') i += 1;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(' && source[i + 1] !== '?') groups += 1;
    else if (c === '(' && source[i + 2] === '<' && source[i + 3] !== '=' && source[i + 3] !== '!') {
      groups += 1;
      names.push(source.slice(i + 3, source.indexOf('>', i)));
    }
  }
  return { groups, names };
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

/*
 * Backtracking analysis of a translated pattern, which `isLinearSafe` (star height) cannot do:
 * it sees neither overlapping alternatives in a loop nor loops in a row.
 *
 * The pattern is parsed into a small syntax tree and turned into a position automaton (Glushkov):
 * one state per character atom (a literal, a class, `.`, `\d`...), an edge p -> q when q can
 * match the character right after p. An edge made by two constructs, as in `(a+)+` where both
 * loops lead from `a` back to `a`, is two ways for the backtracking engine to go and is counted
 * twice. `^`, `$` and `\b` are states that match no character: no run of one character goes
 * through them (`\b` never holds between two characters of one class). The main pattern is
 * preceded by a loop over any character, standing for the search that tries every start.
 *
 * Character sets are compared on a sample alphabet: ASCII, characters of each Unicode category
 * the translated classes tell apart, and every character the pattern names with the one after
 * it (which starts the complement of a range). Sets of literals and ranges are so compared
 * exactly, `\p{...}` classes by their sample members.
 *
 * Three checks, in order, each naming what it found:
 * 1. Exponential: two different paths from a state back to itself reading the same text: a pair
 *    of states (p, r), p != r, or an edge counted twice, on a cycle through the pairs (q, q) of
 *    the product of the automaton with itself. Each repetition of that text doubles the ways to
 *    match it, and a failing match tries them all.
 * 2. Alternatives in a repeated group that can start with the same character, as in `(a|ab)*c`:
 *    not every such loop is exponential, but it is the shape that becomes one with a small edit,
 *    and a template never needs it, as the alternatives can be made exclusive.
 * 3. Polynomial: loops in a row that can all repeat one character, with nothing between them
 *    that must match another, so that a failing match over a run of n of that character tries
 *    every way of sharing the run among them: n^k for k loops, the search counting as one when
 *    the run can begin the match. n^4 is refused where the run can begin the match
 *    (`\d*\d*\d*x`), n^5 elsewhere. Templates often have k = 3 (`.*\s+x`, or
 *    `Total\s+(.+)\s+EUR`, where the run must follow "Total"), and one has four loops in a row
 *    after fixed columns: the match-time budget bounds those. Bounded counts (`\d{2}`,
 *    `\s{10,40}`) do not grow with the run and are not counted, nor are states after which the
 *    rest of the pattern cannot fail (it can end there, with no anchor or lookaround after): a
 *    match reaching them succeeds at once.
 *
 * `compilePattern` runs this before `isLinearSafe`, for its messages; star height still refuses
 * what it refused before, so no template that loaded stops loading, and none that did not starts.
 * Cost: a pattern without a repeated group and with fewer than three unbounded loops (most of
 * them) is not analysed; the others take well under a millisecond.
 */

type Node =
  | { type: 'atom'; start: number; end: number; id: number }
  | { type: 'seq'; start: number; end: number; items: Node[] }
  | { type: 'alt'; start: number; end: number; branches: Node[] }
  | { type: 'group'; start: number; end: number; body: Node }
  | { type: 'quant'; start: number; end: number; body: Node; min: number; max: number }
  | { type: 'assert'; start: number; end: number }
  | { type: 'look'; start: number; end: number; body: Node; behind: boolean };

interface Atom {
  node: Node & { type: 'atom' };
  /** Source of a pattern matching the atom's characters, for testing them. */
  test: string;
  /** Characters the atom names. */
  chars: number[];
  /** The loop standing for the search of a match at every start. */
  search?: boolean;
}

const HEX = /^[0-9a-fA-F]+$/;
const COUNT = /\{(\d+)(,?)(\d*)\}/y;
const LOW_SURROGATE = /\\u[dD][c-fC-F][0-9a-fA-F]{2}/y;
const BACKREF = /[1-9]\d*|k<[^>]*>/y;
/** A bounded count up to this many repetitions does not grow with the text. */
const GROWS = 100;

/** Parses a pattern that `new RegExp(source, 'u')` accepted, so errors need not be reported. */
class Parser {
  i = 0;
  readonly atoms: Atom[] = [];
  constructor(readonly s: string) {}

  /** `sticky` matched where the parser is. */
  private at(sticky: RegExp): RegExpExecArray | null {
    sticky.lastIndex = this.i;
    return sticky.exec(this.s);
  }

  /** The pattern, preceded by the search loop. */
  parse(): Node {
    const body = this.disjunction();
    const search = this.atom(0, '[\\s\\S]', []);
    this.atoms.at(-1)!.search = true;
    return { type: 'seq', start: 0, end: this.s.length, items: [{ type: 'quant', start: 0, end: 0, body: search, min: 0, max: Infinity }, body] };
  }

  private disjunction(): Node {
    const start = this.i;
    const branches = [this.alternative()];
    while (this.s[this.i] === '|') {
      this.i += 1;
      branches.push(this.alternative());
    }
    return branches.length === 1 ? branches[0]! : { type: 'alt', start, end: this.i, branches };
  }

  private alternative(): Node {
    const start = this.i;
    const items: Node[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') items.push(this.term());
    return items.length === 1 ? items[0]! : { type: 'seq', start, end: this.i, items };
  }

  private atom(start: number, test: string, chars: number[]): Node & { type: 'atom' } {
    const node = { type: 'atom' as const, start, end: this.i, id: this.atoms.length };
    this.atoms.push({ node, test, chars });
    return node;
  }

  private term(): Node {
    const s = this.s;
    const start = this.i;
    const c = s[this.i]!;
    let node: Node;
    if (c === '^' || c === '$' || (c === '\\' && s[this.i + 1] === 'b')) {
      this.i += c === '\\' ? 2 : 1;
      return this.atom(start, '[]', []);
    }
    if (c === '\\' && s[this.i + 1] === 'B') {
      this.i += 2;
      return { type: 'assert', start, end: this.i };
    }
    if (c === '(') {
      const look = /^\(\?(<?)[=!]/.exec(s.slice(this.i, this.i + 4));
      if (look) this.i += look[0].length;
      else if (s.startsWith('(?:', this.i)) this.i += 3;
      else if (s.startsWith('(?<', this.i)) this.i = s.indexOf('>', this.i) + 1;
      else this.i += 1;
      const body = this.disjunction();
      this.i += 1;
      node = look ? { type: 'look', start, end: this.i, body, behind: look[1] === '<' } : { type: 'group', start, end: this.i, body };
    } else if (c === '[') {
      node = this.charClass();
    } else if (c === '.') {
      this.i += 1;
      node = this.atom(start, '.', []);
    } else if (c === '\\') {
      node = this.escape();
    } else {
      const cp = s.codePointAt(this.i)!;
      this.i += cp > 0xffff ? 2 : 1;
      node = this.atom(start, s.slice(start, this.i), [cp]);
    }
    return this.quantifier(node, start);
  }

  private quantifier(body: Node, start: number): Node {
    const s = this.s;
    let min: number;
    let max: number;
    const c = s[this.i];
    if (c === '*' || c === '+' || c === '?') {
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
      this.i += 1;
    } else if (c === '{') {
      const m = this.at(COUNT);
      if (!m) return body;
      min = Number(m[1]);
      max = m[2] ? (m[3] ? Number(m[3]) : Infinity) : min;
      this.i += m[0].length;
    } else {
      return body;
    }
    if (s[this.i] === '?') this.i += 1;
    return { type: 'quant', start, end: this.i, body, min, max };
  }

  /** The code point of the escape after a backslash, or null for a class escape such as `\d`. */
  private escapedChar(): number | null {
    const s = this.s;
    const n = s[this.i]!;
    this.i += 1;
    switch (n) {
      case 't':
        return 9;
      case 'n':
        return 10;
      case 'v':
        return 11;
      case 'f':
        return 12;
      case 'r':
        return 13;
      case '0':
        return 0;
      case 'b': // in a class
        return 8;
      case 'c':
        this.i += 1;
        return s.charCodeAt(this.i - 1) % 32;
      case 'x':
        this.i += 2;
        return parseInt(s.slice(this.i - 2, this.i), 16);
      case 'u': {
        if (s[this.i] === '{') {
          const close = s.indexOf('}', this.i);
          const cp = parseInt(s.slice(this.i + 1, close), 16);
          this.i = close + 1;
          return cp;
        }
        const hex = s.slice(this.i, this.i + 4);
        this.i += 4;
        const cp = HEX.test(hex) ? parseInt(hex, 16) : 0;
        if (cp >= 0xd800 && cp < 0xdc00 && this.at(LOW_SURROGATE)) {
          const low = parseInt(s.slice(this.i + 2, this.i + 6), 16);
          this.i += 6;
          return (cp - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        }
        return cp;
      }
      case 'p':
      case 'P':
        this.i = s.indexOf('}', this.i) + 1;
        return null;
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
        return null;
      default:
        return n.codePointAt(0)!;
    }
  }

  private escape(): Node {
    const s = this.s;
    const start = this.i;
    this.i += 1;
    const backref = this.at(BACKREF);
    if (backref) {
      // What a backreference matches is not known here: read as one atom of any character.
      this.i += backref[0].length;
      return this.atom(start, '[\\s\\S]', []);
    }
    const cp = this.escapedChar();
    return this.atom(start, s.slice(start, this.i), cp === null ? [] : [cp]);
  }

  private charClass(): Node {
    const s = this.s;
    const start = this.i;
    const chars: number[] = [];
    this.i += s[this.i + 1] === '^' ? 2 : 1;
    while (s[this.i] !== ']') {
      let cp: number | null;
      if (s[this.i] === '\\') {
        this.i += 1;
        cp = this.escapedChar();
      } else {
        cp = s.codePointAt(this.i)!;
        this.i += cp > 0xffff ? 2 : 1;
      }
      // Every interval of the class and of its complement starts at a named character or just
      // after one, so a sample holding them meets every overlap of two classes.
      if (cp !== null) chars.push(cp, cp + 1);
    }
    this.i += 1;
    return this.atom(start, s.slice(start, this.i), chars);
  }
}

/** A sample of characters outside ASCII, one or more of each kind the translated classes tell apart. */
const SAMPLE = [
  0xa0, 0xaa, 0xb2, 0xb5, 0xbd, 0xc0, 0xc9, 0xd7, 0xdf, 0xe9, 0xf7, 0xff, 0x130, 0x131, 0x142, 0x17f, 0x1c5, 0x2b0, 0x301, 0x391, 0x3b1, 0x416, 0x436,
  0x5d0, 0x627, 0x660, 0x966, 0x1680, 0x2003, 0x200b, 0x2013, 0x2019, 0x201c, 0x2028, 0x2029, 0x202f, 0x20ac, 0x2116, 0x212a, 0x2160, 0x2460,
  0x3000, 0x3042, 0x4e2d, 0xfeff, 0xff10, 0xff21, 0x1d400, 0x1f600,
];
/** Printable ASCII first, so that examples in messages are readable. */
const BASE = [...Array.from({ length: 95 }, (_, i) => i + 32), ...Array.from({ length: 32 }, (_, i) => i), 127, ...SAMPLE];
const IN_BASE = new Set(BASE);
const BASE_WORDS = Math.ceil(BASE.length / 32);
/** The characters of BASE an atom matches, and a pattern testing others, by flags and atom source. */
const membershipCache = new Map<string, { test: RegExp; base: Uint32Array }>();

/**
 * Each atom's characters as a bit set over the sample alphabet (BASE, then the characters the
 * pattern names that BASE lacks), and that alphabet.
 */
function characterSets(atoms: Atom[], flags: string): { sets: Uint32Array[]; alphabet: number[] } {
  const testFlags = `u${flags.includes('i') ? 'i' : ''}${flags.includes('s') ? 's' : ''}`;
  const extra = new Set<number>();
  for (const a of atoms) {
    for (const cp of a.chars) {
      if (cp > 0x10ffff || IN_BASE.has(cp)) continue;
      extra.add(cp);
      if (testFlags.includes('i')) {
        const ch = String.fromCodePoint(cp);
        extra.add(ch.toLowerCase().codePointAt(0)!);
        extra.add(ch.toUpperCase().codePointAt(0)!);
      }
    }
  }
  const extras = [...extra].filter((cp) => !IN_BASE.has(cp));
  const words = Math.ceil((BASE.length + extras.length) / 32);
  const bySource = new Map<string, Uint32Array>();
  const sets = atoms.map((a) => {
    let set = bySource.get(a.test);
    if (set) return set;
    const key = `${testFlags}\u0000${a.test}`;
    let known = membershipCache.get(key);
    if (!known) {
      if (membershipCache.size >= CACHE_LIMIT) membershipCache.clear();
      const test = new RegExp(`^(?:${a.test})$`, testFlags);
      known = { test, base: new Uint32Array(BASE_WORDS) };
      for (let k = 0; k < BASE.length; k += 1) if (test.test(String.fromCodePoint(BASE[k]!))) known.base[k >>> 5]! |= 1 << (k & 31);
      membershipCache.set(key, known);
    }
    set = known.base;
    if (extras.length) {
      set = new Uint32Array(words);
      set.set(known.base);
      for (let e = 0; e < extras.length; e += 1) {
        const k = BASE.length + e;
        if (known.test.test(String.fromCodePoint(extras[e]!))) set[k >>> 5]! |= 1 << (k & 31);
      }
    }
    bySource.set(a.test, set);
    return set;
  });
  return { sets, alphabet: extras.length ? [...BASE, ...extras] : BASE };
}

/** The first character (its index in the alphabet) two sets share, or -1. */
function shared(a: Uint32Array, b: Uint32Array): number {
  for (let w = 0; w < a.length && w < b.length; w += 1) {
    const both = a[w]! & b[w]!;
    if (both) return w * 32 + (31 - Math.clz32(both & -both));
  }
  return -1;
}
const has = (set: Uint32Array, c: number) => (set[c >>> 5]! & (1 << (c & 31))) !== 0;
const isEmpty = (set: Uint32Array) => set.every((w) => w === 0);

/**
 * Ways to reach a position without reading (or to leave it): more than one is a choice the
 * engine backtracks over. Counted up to MAX_WAYS.
 */
type Counts = Map<number, number>;
const MAX_WAYS = 2 ** 30;

function add(into: Counts, from: Counts, times = 1): void {
  if (!times) return;
  for (const [p, c] of from) into.set(p, Math.min(MAX_WAYS, (into.get(p) ?? 0) + c * times));
}

interface Info {
  /** Ways to match the empty text (assertions counted as passing). */
  empty: number;
  first: Counts;
  last: Counts;
  /** Positions after which this part can end with nothing that may fail (no assertion, nothing required). */
  ends: Set<number>;
  /** Whether the part can match the empty text with nothing that may fail. */
  passes: boolean;
}

interface Edge {
  count: number;
  /** The constructs that made the edge: the loop of a back edge, the sequence of a forward one. */
  via: Node[];
  /** Made by a sequence or an unbounded loop, not only by bounded counts. */
  grows: boolean;
}

/**
 * Steps (entries of state sets copied, edges made, pairs of states visited) the analysis of one
 * pattern may take: 7 times the most a pattern of the invoice2data library takes (4,240), and
 * at most some 20 ms on a hostile 2,000-character pattern. A pattern needing more is refused as
 * too complex to check.
 */
const MAX_STEPS = 30_000;

class TooComplex extends Error {}

/** What is left of MAX_STEPS for one pattern. */
class Budget {
  left = MAX_STEPS;
  spend(steps: number): void {
    if ((this.left -= steps) < 0) throw new TooComplex();
  }
}

interface Automaton {
  positions: number[];
  /** Positions after which the rest of the (sub)pattern cannot fail. */
  accepting: Set<number>;
  alternations: (Node & { type: 'alt' })[];
}

/** Position automata of the pattern and of each lookaround body (matched on its own, backwards for a lookbehind). */
class Automata {
  readonly follow: Map<number, Edge>[];
  readonly info = new Map<Node, Info>();
  readonly parent = new Map<Node, Node>();
  readonly list: Automaton[] = [];

  constructor(
    root: Node,
    atoms: Atom[],
    private readonly budget: Budget,
  ) {
    this.follow = atoms.map(() => new Map());
    const pending: { body: Node; behind: boolean }[] = [{ body: root, behind: false }];
    while (pending.length) {
      const { body, behind } = pending.shift()!;
      const automaton: Automaton = { positions: [], accepting: new Set(), alternations: [] };
      automaton.accepting = this.build(body, behind, automaton, pending).ends;
      this.list.push(automaton);
    }
  }

  private link(from: Counts, to: Counts, via: Node, grows: boolean): void {
    this.budget.spend(from.size * to.size);
    for (const [p, cp] of from) {
      const edges = this.follow[p]!;
      for (const [q, cq] of to) {
        const edge = edges.get(q);
        const count = Math.min(MAX_WAYS, cp * cq);
        if (edge) {
          edge.count = Math.min(MAX_WAYS, edge.count + count);
          edge.grows ||= grows;
          if (edge.via.length < 2) edge.via.push(via);
        } else {
          edges.set(q, { count, via: [via], grows });
        }
      }
    }
  }

  private child(node: Node, c: Node, reverse: boolean, a: Automaton, pending: { body: Node; behind: boolean }[]): Info {
    this.parent.set(c, node);
    return this.build(c, reverse, a, pending);
  }

  private build(node: Node, reverse: boolean, a: Automaton, pending: { body: Node; behind: boolean }[]): Info {
    let info: Info;
    switch (node.type) {
      case 'atom':
        a.positions.push(node.id);
        info = { empty: 0, first: new Map([[node.id, 1]]), last: new Map([[node.id, 1]]), ends: new Set([node.id]), passes: false };
        break;
      case 'assert':
        info = { empty: 1, first: new Map(), last: new Map(), ends: new Set(), passes: false };
        break;
      case 'look':
        this.parent.set(node.body, node);
        pending.push({ body: node.body, behind: node.behind });
        info = { empty: 1, first: new Map(), last: new Map(), ends: new Set(), passes: false };
        break;
      case 'group':
        info = this.child(node, node.body, reverse, a, pending);
        break;
      case 'alt': {
        a.alternations.push(node);
        info = { empty: 0, first: new Map(), last: new Map(), ends: new Set(), passes: false };
        for (const b of node.branches) {
          const x = this.child(node, b, reverse, a, pending);
          this.budget.spend(x.first.size + x.last.size + x.ends.size);
          info.empty = Math.min(MAX_WAYS, info.empty + x.empty);
          add(info.first, x.first);
          add(info.last, x.last);
          x.ends.forEach((p) => info.ends.add(p));
          info.passes ||= x.passes;
        }
        break;
      }
      case 'seq': {
        info = { empty: 1, first: new Map(), last: new Map(), ends: new Set(), passes: true };
        const items = reverse ? [...node.items].reverse() : node.items;
        for (const item of items) {
          const x = this.child(node, item, reverse, a, pending);
          this.budget.spend(info.first.size + info.last.size + x.first.size + x.last.size + info.ends.size + x.ends.size);
          this.link(info.last, x.first, node, true);
          let { first } = info;
          if (info.empty) add((first = new Map(first)), x.first, info.empty);
          let { last } = x;
          if (x.empty) add((last = new Map(last)), info.last, x.empty);
          info = {
            empty: Math.min(MAX_WAYS, info.empty * x.empty),
            first,
            last,
            ends: x.passes ? new Set([...info.ends, ...x.ends]) : x.ends,
            passes: info.passes && x.passes,
          };
        }
        break;
      }
      case 'quant': {
        const x = this.child(node, node.body, reverse, a, pending);
        if (node.max >= 2) this.link(x.last, x.first, node, node.max > GROWS);
        // Past the minimum, an iteration matching the empty text ends the loop: the only way to
        // match nothing is to skip, or to match nothing in each required iteration.
        const empty = node.min === 0 ? 1 : Math.min(MAX_WAYS, x.empty ** Math.min(node.min, 30));
        info = { empty, first: x.first, last: x.last, ends: x.ends, passes: node.min === 0 || x.passes };
        break;
      }
    }
    this.info.set(node, info);
    return info;
  }
}

/** Strongly connected components of the graph on `nodes`, states below `size` (Tarjan, iterative), sinks first. */
function components(nodes: number[], next: (n: number) => number[], size: number): number[][] {
  const index = new Int32Array(size).fill(-1);
  const low = new Int32Array(size);
  const onStack = new Uint8Array(size);
  const stack: number[] = [];
  const work: { n: number; next: number[]; k: number }[] = [];
  const out: number[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index[root]! >= 0) continue;
    let enter = root;
    while (enter >= 0 || work.length) {
      if (enter >= 0) {
        index[enter] = low[enter] = counter;
        counter += 1;
        stack.push(enter);
        onStack[enter] = 1;
        work.push({ n: enter, next: next(enter), k: 0 });
        enter = -1;
      }
      const top = work.at(-1)!;
      if (top.k < top.next.length) {
        const m = top.next[top.k]!;
        top.k += 1;
        if (index[m]! < 0) enter = m;
        else if (onStack[m]) low[top.n] = Math.min(low[top.n]!, index[m]!);
        continue;
      }
      work.pop();
      const up = work.at(-1);
      if (up) low[up.n] = Math.min(low[up.n]!, low[top.n]!);
      if (low[top.n] === index[top.n]) {
        const scc: number[] = [];
        let m: number;
        do {
          m = stack.pop()!;
          onStack[m] = 0;
          scc.push(m);
        } while (m !== top.n);
        out.push(scc);
      }
    }
  }
  return out;
}

/**
 * Two different paths from a state back to itself reading the same text: a pair (p, r), p != r,
 * on a cycle through the pairs (q, q) of the automaton's product with itself, or an edge made
 * twice on such a cycle. Returns the pair (p = r for a double edge) and a character they share.
 */
function exponential(a: Automaton, follow: Map<number, Edge>[], sets: Uint32Array[], search: number, budget: Budget): [number, number, number] | null {
  const positions = a.positions.filter((p) => p !== search && !isEmpty(sets[p]!));
  positions.forEach((p) => budget.spend(follow[p]!.size + 1));
  const inside = new Set(positions);
  const adjacent = new Map(positions.map((p) => [p, [...follow[p]!.keys()].filter((q) => inside.has(q))]));
  const next = (p: number) => adjacent.get(p)!;
  for (const scc of components(positions, next, follow.length)) {
    if (scc.length === 1) {
      // One state: only a loop edge made twice, as in `(a+)+`, gives two paths.
      const p = scc[0]!;
      if ((follow[p]!.get(p)?.count ?? 0) >= 2) return [p, p, shared(sets[p]!, sets[p]!)];
      continue;
    }
    const k = scc.length;
    const index = new Map(scc.map((p, i) => [p, i]));
    const succ = scc.map((p) => next(p).filter((q) => index.has(q)).map((q) => index.get(q)!));
    const pred: number[][] = scc.map(() => []);
    succ.forEach((list, i) => list.forEach((j) => pred[j]!.push(i)));
    const common = (i: number, j: number) => shared(sets[scc[i]!]!, sets[scc[j]!]!);
    const reach = (edges: number[][]): Uint8Array => {
      const seen = new Uint8Array(k * k);
      const queue = [0];
      seen[0] = 1;
      while (queue.length) {
        const n = queue.pop()!;
        const i = Math.floor(n / k);
        const j = n % k;
        budget.spend(edges[i]!.length * edges[j]!.length);
        for (const i2 of edges[i]!) {
          for (const j2 of edges[j]!) {
            const m = i2 * k + j2;
            if (!seen[m] && (i2 === j2 || common(i2, j2) >= 0)) {
              seen[m] = 1;
              queue.push(m);
            }
          }
        }
      }
      return seen;
    };
    const forward = reach(succ);
    const backward = reach(pred);
    for (let n = 0; n < k * k; n += 1) {
      const i = Math.floor(n / k);
      const j = n % k;
      if (i !== j && forward[n] && backward[n]) return [scc[i]!, scc[j]!, common(i, j)];
    }
    for (const p of scc) {
      for (const [q, edge] of follow[p]!) {
        if (edge.count >= 2 && index.has(q)) return [p, q, shared(sets[q]!, sets[q]!)];
      }
    }
  }
  return null;
}

/**
 * The most ways a failing match may have to try without reading: between two characters the
 * pattern may match the empty text in several ways, as `(?:x?|y?)` does in two, and such
 * choices in a row multiply, as in `a(?:x?|y?){20}b` (2^20 ways to fail on "ac"). Along a path
 * of states after which the match cannot end, a failing match tries every combination; within
 * a cycle every edge is single (`exponential` refuses the others). Returns the total and the
 * edge with the most ways on the way, its start (the search for one before the first
 * character) and end.
 */
function emptyWays(a: Automaton, follow: Map<number, Edge>[], sets: Uint32Array[], budget: Budget): { total: number; p: number; q: number; ways: number } | null {
  const positions = a.positions.filter((p) => !a.accepting.has(p) && !isEmpty(sets[p]!));
  positions.forEach((p) => budget.spend(follow[p]!.size + 1));
  if (!positions.some((p) => [...follow[p]!.values()].some((e) => e.count > 1))) return null;
  const inside = new Uint8Array(follow.length);
  positions.forEach((p) => (inside[p] = 1));
  const next = (p: number) => [...follow[p]!.keys()].filter((q) => inside[q]);
  const sccs = components(positions, next, follow.length);
  const sccOf = new Int32Array(follow.length);
  sccs.forEach((s, i) => s.forEach((p) => (sccOf[p] = i)));
  const total: number[] = [];
  const worst: { p: number; q: number; ways: number }[] = [];
  // Components come sinks first, so every successor's total is known before its predecessors'.
  sccs.forEach((s, i) => {
    let most = 1;
    let edge = { p: s[0]!, q: s[0]!, ways: 1 };
    for (const p of s) {
      let failing = 0;
      let widest = { p, q: p, ways: 0 };
      for (const [q, e] of follow[p]!) {
        failing += e.count;
        if (e.count > widest.ways) widest = { p, q, ways: e.count };
        const j = inside[q] ? sccOf[q]! : i;
        if (j !== i && e.count * total[j]! > most) {
          most = e.count * total[j]!;
          edge = e.count >= worst[j]!.ways ? { p, q, ways: e.count } : worst[j]!;
        }
      }
      if (failing > most) {
        most = failing;
        edge = widest;
      }
    }
    total.push(Math.min(MAX_WAYS, most));
    worst.push(edge);
  });
  const top = total.indexOf(Math.max(...total));
  return top >= 0 ? { total: total[top]!, ...worst[top]! } : null;
}

/**
 * Loops in a row that can all repeat one character class, as many as one run of it can be
 * shared among: the first chain found longer than `limit` allows, the search loop counted.
 */
function polynomial(a: Automaton, follow: Map<number, Edge>[], sets: Uint32Array[], characters: number, search: number, budget: Budget): { c: number; positions: number[] } | null {
  const positions = a.positions.filter((p) => !a.accepting.has(p) && !isEmpty(sets[p]!));
  const growing = new Map(positions.map((p) => [p, [...follow[p]!].filter(([, e]) => e.grows).map(([q]) => q)]));
  // States on a cycle: each loop of a chain has one, so a character needs more of them than allowed.
  const inLoops = components(positions, (p) => growing.get(p)!.filter((q) => growing.has(q)), follow.length)
    .filter((s) => s.length > 1 || growing.get(s[0]!)!.includes(s[0]!))
    .flat();
  if (inLoops.length <= MAX_LOOPS_FROM_START) return null;
  budget.spend(characters * inLoops.length);
  // One character of each class of characters the loops tell apart, among those enough loops repeat.
  const candidates = new Map<string, number>();
  const holding: number[] = [];
  for (let c = 0; c < characters; c += 1) {
    holding.length = 0;
    for (const p of inLoops) if (has(sets[p]!, c)) holding.push(p);
    if (holding.length <= MAX_LOOPS_FROM_START) continue;
    const key = holding.join();
    if (!candidates.has(key)) candidates.set(key, c);
  }
  for (const c of candidates.values()) {
    const nodes = positions.filter((p) => has(sets[p]!, c));
    nodes.forEach((p) => budget.spend(follow[p]!.size + 1));
    const inside = new Set(nodes);
    const next = (p: number) => growing.get(p)!.filter((q) => inside.has(q));
    const sccs = components(nodes, next, follow.length);
    const cyclic = sccs.map((s) => s.length > 1 || next(s[0]!).includes(s[0]!));
    if (cyclic.filter(Boolean).length <= MAX_LOOPS_FROM_START) continue;
    const sccOf = new Map<number, number>();
    sccs.forEach((s, i) => s.forEach((p) => sccOf.set(p, i)));
    const best: number[] = [];
    const after: number[] = [];
    // Components come sinks first, so every successor's chain is known before its predecessors'.
    sccs.forEach((s, i) => {
      let most = 0;
      let to = -1;
      for (const p of s) {
        for (const q of next(p)) {
          const j = sccOf.get(q)!;
          if (j !== i && best[j]! > most) {
            most = best[j]!;
            to = j;
          }
        }
      }
      best.push(most + (cyclic[i] ? 1 : 0));
      after.push(to);
    });
    const chain = (top: number) => {
      const out: number[] = [];
      for (let i = top; i >= 0; i = after[i]!) if (cyclic[i]) out.push(sccs[i]![0]!);
      return { c, positions: out };
    };
    const start = sccs.findIndex((s) => s[0] === search);
    if (start >= 0 && best[start]! > MAX_LOOPS_FROM_START) return chain(start);
    const top = best.indexOf(Math.max(...best));
    if (best[top]! > MAX_LOOPS) return chain(top);
  }
  return null;
}

const TOO_COMPLEX = 'it has too many repetitions and alternatives to be checked; simplify it';
/** Ways to match nothing that a failing match may have to try, from which a pattern is refused. */
const MANY_WAYS = 1024;
/**
 * Loops sharing a run allowed in a row, the search counted: a failing match over a run of n
 * takes n^k for k loops. n^4 is refused where the run can begin the match (`\d*\d*\d*x`);
 * after required text, as in the columns of a line, four loops (the Opal template) are let
 * through and n^5 is refused.
 */
const MAX_LOOPS_FROM_START = 3;
const MAX_LOOPS = 4;
const riskCache = new Map<string, string | null>();

/** Why a pattern may backtrack catastrophically, in terms of the original pattern, or null; see the comment above. */
function backtrackingRisk(original: string, t: Translation): string | null {
  let risk = riskCache.get(original);
  if (risk === undefined) {
    risk = mayRisk(t.source) ? analyse(original, t) : null;
    if (riskCache.size >= CACHE_LIMIT) riskCache.clear();
    riskCache.set(original, risk);
  }
  return risk;
}

/**
 * Whether `analyse` can find anything: it needs a repeated group (a cycle through more than one
 * state, or a loop edge made twice, or alternatives in a loop), alternatives (two ways to match
 * nothing) or three unbounded loops (the search makes four). Most template patterns, such as
 * `Total\s+(\d+[.,]\d\d)`, have none of them.
 */
function mayRisk(source: string): boolean {
  let loops = 0;
  let inClass = false;
  let afterGroup = false;
  let alternatives = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i]!;
    const closes = afterGroup;
    afterGroup = false;
    if (c === '\\') {
      i += 1;
    } else if (inClass) {
      inClass = c !== ']';
    } else if (c === '[') {
      inClass = true;
    } else if (c === ')') {
      afterGroup = true;
    } else if (c === '|') {
      alternatives = true;
    } else {
      let max = 0;
      if (c === '*' || c === '+') {
        max = Infinity;
      } else if (c === '{') {
        COUNT.lastIndex = i;
        const m = COUNT.exec(source);
        if (m) max = m[2] ? (m[3] ? Number(m[3]) : Infinity) : Number(m[1]);
      }
      if (max >= 2 && closes) return true;
      if (max > GROWS && (loops += 1) >= MAX_LOOPS_FROM_START) return true;
    }
  }
  return alternatives;
}

function analyse(original: string, t: Translation): string | null {
  const parser = new Parser(t.source);
  const root = parser.parse();
  try {
    return findRisk(original, t, parser.atoms, root, new Budget());
  } catch (err) {
    if (err instanceof TooComplex) return TOO_COMPLEX;
    throw err;
  }
}

function findRisk(original: string, t: Translation, atoms: Atom[], root: Node, budget: Budget): string | null {
  const automata = new Automata(root, atoms, budget);
  const { sets, alphabet } = characterSets(atoms, t.flags);
  const search = atoms.findIndex((atom) => atom.search);
  const explain = () => new Explanation(original, t, atoms, automata, alphabet);
  for (const a of automata.list) {
    const found = exponential(a, automata.follow, sets, search, budget);
    if (found) return explain().exponential(...found);
    for (const alt of a.alternations) {
      if (!loopAround(automata.parent, alt)) continue;
      // The first characters of each alternative against those of the ones before it.
      const before = new Uint32Array(sets[0]!.length);
      for (let j = 0; j < alt.branches.length; j += 1) {
        const first = new Uint32Array(before.length);
        for (const p of automata.info.get(alt.branches[j]!)!.first.keys()) if (p !== search) sets[p]!.forEach((w, k) => (first[k]! |= w));
        budget.spend(automata.info.get(alt.branches[j]!)!.first.size);
        if (shared(before, first) >= 0) {
          const i = alt.branches.findIndex((b) => [...automata.info.get(b)!.first.keys()].some((p) => p !== search && shared(sets[p]!, first) >= 0));
          return explain().overlappingStarts(alt, i, j, shared(before, first));
        }
        first.forEach((w, k) => (before[k]! |= w));
      }
    }
  }
  for (const a of automata.list) {
    const ways = emptyWays(a, automata.follow, sets, budget);
    if (ways && ways.total >= MANY_WAYS) return explain().emptyWays(ways.total, ways.p, ways.q, ways.ways, search);
  }
  for (const a of automata.list) {
    const chain = polynomial(a, automata.follow, sets, alphabet.length, search, budget);
    if (chain) return explain().polynomial(chain.positions, chain.c, search);
  }
  return null;
}

/** The innermost loop around `n` (itself excluded) repeating at least `least` times, inside the pattern or lookaround body `n` is in. */
function loopAround(parent: Map<Node, Node>, n: Node, least = 2): (Node & { type: 'quant' }) | undefined {
  for (let m = parent.get(n); m && m.type !== 'look'; m = parent.get(m)) if (m.type === 'quant' && m.max >= least) return m;
  return undefined;
}

/** The messages of `analyse`, naming parts and positions of the original pattern. */
class Explanation {
  constructor(
    readonly original: string,
    readonly t: Translation,
    readonly atoms: Atom[],
    readonly automata: Automata,
    readonly alphabet: number[],
  ) {}

  node(p: number): Node {
    return this.atoms[p]!.node;
  }

  at(n: Node): number {
    return this.t.from[n.start]!;
  }

  text(n: Node): string {
    const s = this.original.slice(this.t.from[n.start], this.t.to[n.end - 1]);
    return `'${s.length > 40 ? `${s.slice(0, 37)}...` : s}'`;
  }

  example(c: number): string {
    const ch = String.fromCodePoint(this.alphabet[c]!);
    if (ch === ' ') return 'a space';
    if (ch === '\n') return 'a line break';
    return /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(ch) ? `'${ch}'` : `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }

  /** Enclosing nodes, innermost first, up to the pattern or lookaround body `n` is in. */
  ancestors(n: Node): Node[] {
    const out: Node[] = [];
    for (let m = this.automata.parent.get(n); m && m.type !== 'look'; m = this.automata.parent.get(m)) out.push(m);
    return out;
  }

  group(loop: Node | undefined): string {
    return loop ? `the repeated group at position ${this.at(loop)}` : 'the pattern';
  }

  ambiguous(loop: Node | undefined, c: number): string {
    return `${this.group(loop)} can match the same text (${this.example(c)}) in more than one way, so a failed match backtracks exponentially; make its parts exclusive`;
  }

  /** What `p` is part of directly inside `loop`: the outermost quantified part there, or the atom itself. */
  part(p: number, loop: Node): Node {
    let best = this.node(p);
    for (const m of this.ancestors(this.node(p))) {
      if (m === loop) break;
      if (m.type === 'quant') best = m;
    }
    return best;
  }

  /** Two paths reading the same text, through `p` and `r` or (p = r) along a double edge into `p`. */
  exponential(p: number, r: number, c: number): string {
    const { parent, follow, info } = this.automata;
    const byPosition = (u: Node, v: Node) => u.start - v.start;
    if (p === r) {
      const [inner, outer] = [...follow[p]!.get(r)!.via].sort((u, v) => this.ancestors(v).length - this.ancestors(u).length);
      if (inner?.type !== 'quant' || outer?.type !== 'quant') return this.ambiguous(loopAround(parent, this.node(p)), c);
      return `${this.text(inner)} at position ${this.at(inner)} repeats inside ${this.group(outer)} and both can repeat the same text (${this.example(c)}), so they can share it out in exponentially many ways and a failed match backtracks exponentially; remove the inner repetition, or make each repetition start with what the previous one cannot end with`;
    }
    const up = new Set([this.node(p), ...this.ancestors(this.node(p))]);
    const lca = [this.node(r), ...this.ancestors(this.node(r))].find((m) => up.has(m))!;
    const loop = loopAround(parent, lca);
    if (lca.type === 'alt') {
      const branch = (q: number) => lca.branches.find((b) => b === this.node(q) || this.ancestors(this.node(q)).includes(b))!;
      if (info.get(branch(p))!.first.has(p) && info.get(branch(r))!.first.has(r)) {
        const [u, v] = [branch(p), branch(r)].sort(byPosition);
        return `alternatives ${this.text(u!)} and ${this.text(v!)} inside ${this.group(loop)} can match the same text (${this.example(c)}), so a failed match backtracks exponentially; make the alternatives exclusive`;
      }
    }
    if (!loop) return this.ambiguous(loop, c);
    const [u, v] = [this.part(p, loop), this.part(r, loop)].sort(byPosition);
    if (u === v) return this.ambiguous(loop, c);
    return `${this.text(u!)} at position ${this.at(u!)} and ${this.text(v!)} at position ${this.at(v!)} inside ${this.group(loop)} can both match the same text (${this.example(c)}), so the repetitions can share it out in exponentially many ways and a failed match backtracks exponentially; make the parts exclusive or remove the inner repetition`;
  }

  overlappingStarts(alt: Node & { type: 'alt' }, i: number, j: number, c: number): string {
    return `alternatives ${this.text(alt.branches[i]!)} and ${this.text(alt.branches[j]!)} inside ${this.group(loopAround(this.automata.parent, alt))} can start with the same text (${this.example(c)}), so a failed match retries both at every repetition and can backtrack exponentially; make the alternatives exclusive`;
  }

  emptyWays(total: number, p: number, q: number, ways: number, search: number): string {
    const where = p === search ? `before ${this.text(this.node(q))} at position ${this.at(this.node(q))}` : `between ${this.text(this.node(p))} at position ${this.at(this.node(p))} and ${this.text(this.node(q))} at position ${this.at(this.node(q))}`;
    const more = total >= 2 * ways ? `, and such choices in a row multiply to ${total >= MAX_WAYS ? 'over a billion' : total}` : '';
    return `the pattern can match the empty text ${where} in ${ways >= MAX_WAYS ? 'over a billion' : ways} ways${more}, so a failed match tries them all; let at most one alternative match nothing`;
  }

  polynomial(positions: number[], c: number, search: number): string {
    const loops = positions.filter((p) => p !== search).map((p) => loopAround(this.automata.parent, this.node(p), GROWS + 1) ?? this.node(p));
    const named = loops.map((l) => `${this.text(l)} at position ${this.at(l)}`);
    const list = named.length > 1 ? `${named.slice(0, -1).join(', ')} and ${named.at(-1)}` : named[0];
    const anywhere = positions.includes(search) ? ', and a match can start anywhere in a run of it' : '';
    return `${list} can all repeat the same character (${this.example(c)}) with nothing between them that must match another${anywhere}, so a failed match over a long run tries every way of sharing the run out, a time growing as its length to the power ${positions.length}; separate them with text that must match, or merge them`;
  }
}

function translatedRegex(source: string, extraFlags: string): { regex: RegExp; translated: ReturnType<typeof translateMapped> } {
  const translated = translateMapped(source);
  try {
    return { regex: new RegExp(translated.source, `${translated.flags}u${extraFlags}`), translated };
  } catch (err) {
    throw new PatternError(`invalid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
  }
}

/** Translates, compiles and checks a template pattern; `extraFlags` such as "g" or "gd" for the caller's way of searching. */
export function compilePattern(source: string, extraFlags = ''): CompiledPattern {
  const { regex, translated } = translatedRegex(source, extraFlags);
  const risk = backtrackingRisk(source, translated);
  if (risk) throw new PatternError(`regular expression may backtrack catastrophically: ${risk}`);
  if (!isLinearSafe(translated.source)) {
    throw new PatternError('regular expression may backtrack catastrophically (a quantifier nested in a quantified group, or too many quantifiers); rewrite it without nested repetition');
  }
  return { regex, ...groupsOf(translated.source) };
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

/**
 * A pattern of a saved template, compiled once, without the save-time check: it was checked when
 * its template was saved (a template saved before the check grew stricter must keep working), and
 * matching runs in a template worker whose time budget bounds it.
 */
export function cachedPattern(source: string, extraFlags = ''): CompiledPattern {
  const key = `${extraFlags}\u0000${source}`;
  let compiled = cache.get(key);
  if (!compiled) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    const { regex, translated } = translatedRegex(source, extraFlags);
    compiled = { regex, ...groupsOf(translated.source) };
    cache.set(key, compiled);
  }
  return compiled;
}
