/**
 * Known catastrophic-backtracking patterns (issue 21), as a template author would write them
 * (Python `re` dialect, as docex templates take them), each with text that makes it slow.
 *
 * - `refusedAtSave: true`: `compilePattern` refuses it, so a template holding it cannot be saved
 *   (test/templates/redos.test.ts checks each, and its message).
 * - `refusedAtSave: false`: polynomial shapes the save-time check lets through because real
 *   templates use them (`.*\s+`, `\s+(.+)\s+` after a label, four column loops after `^`); the
 *   match-time budget must bound them on their `attack`.
 *
 * Each `attack` takes seconds or more unbounded (measured with V8, Node 20): see `why`. A pattern
 * that nothing can fail after (the bare loops below) matches at once and cannot be attacked as
 * written; it is refused all the same, as one suffix makes it exponential.
 */
export interface RedosPattern {
  pattern: string;
  /** Text that makes the pattern blow up (for a bare loop, the text that would with a suffix). */
  attack: string;
  refusedAtSave: boolean;
  why: string;
}

const r = String.raw;

export const REDOS_PATTERNS: RedosPattern[] = [
  // Overlapping alternatives in a loop: every character can be taken by either, 2^n ways to fail.
  { pattern: '(a|a)*b', attack: 'a'.repeat(32), refusedAtSave: true, why: 'identical alternatives in a loop: 2^n ways to match n a\'s before failing on the missing b (issue 21)' },
  {
    pattern: '(a|ab)*c',
    attack: 'ab'.repeat(40_000),
    refusedAtSave: true,
    why: 'alternatives starting alike in a loop: V8 takes quadratic time here (each a is tried as a, then as ab, from every start), exponential once an alternative can end where another starts, as in (a|ab|b)*c; refused by the first-character rule (issue 21)',
  },
  { pattern: r`(\w|\d)+$`, attack: '1'.repeat(32) + '!', refusedAtSave: true, why: String.raw`\d is inside \w: every digit can be taken by either alternative (issue 21)` },
  { pattern: r`(\d|[0-9a-f])+$`, attack: '1'.repeat(32) + '!', refusedAtSave: true, why: 'alternatives overlapping through a character class' },
  { pattern: r`(\d|[0-9a-f])+`, attack: '1'.repeat(32) + '!', refusedAtSave: true, why: 'the bare form: nothing after the loop can fail, so it matches at once; refused as the form above is one $ away' },
  { pattern: r`([\d.]|[0-9,])+$`, attack: '1'.repeat(32) + '!', refusedAtSave: true, why: 'two classes sharing the digits, as amount patterns are tempted to write' },
  { pattern: '(?i)(k|K)+$', attack: 'k'.repeat(32) + '!', refusedAtSave: true, why: 'alternatives that differ only in case are identical under (?i)' },
  { pattern: '^(a|a?)+$', attack: 'a'.repeat(32) + '!', refusedAtSave: true, why: 'an alternative and its optional copy: each a taken by either' },
  { pattern: '(a|a?)+', attack: 'a'.repeat(32) + '!', refusedAtSave: true, why: 'the bare form of the one above' },
  { pattern: '(?=(a|a)*b)', attack: 'a'.repeat(32), refusedAtSave: true, why: 'the same loop hidden in a lookahead, which is matched on its own at every position' },
  // Nested quantifiers: the text can be shared out between the inner and outer loop in 2^n ways.
  { pattern: '(a+)+$', attack: 'a'.repeat(32) + '!', refusedAtSave: true, why: 'the textbook nested quantifier' },
  { pattern: '(a+)+', attack: 'a'.repeat(32) + '!', refusedAtSave: true, why: 'the bare form of the one above' },
  { pattern: '^([a-z]+)*$', attack: 'a'.repeat(32) + '1', refusedAtSave: true, why: 'nested quantifier over a class' },
  { pattern: '([a-z]+)*', attack: 'a'.repeat(32) + '1', refusedAtSave: true, why: 'the bare form of the one above' },
  { pattern: '^(\\d+)*$', attack: '1'.repeat(32) + 'x', refusedAtSave: true, why: 'nested quantifier over digits' },
  { pattern: r`(\d+[.,]?)+$`, attack: '1'.repeat(32) + '!', refusedAtSave: true, why: 'a number with an optional separator, repeated: with no separator the digits split any way' },
  { pattern: r`^(\w+\s?)*$`, attack: 'a'.repeat(32) + '!', refusedAtSave: true, why: 'words with an optional space, repeated: with no space the letters split any way' },
  { pattern: '(x+x+)+y', attack: 'x'.repeat(32), refusedAtSave: true, why: 'two adjacent loops over the same character inside a loop' },
  { pattern: r`(\s*,\s*)*$`, attack: ' , '.repeat(24) + '!', refusedAtSave: true, why: 'a list separator whose trailing and leading spaces can take each space between commas (ambiguous because of the two \\s*)' },
  { pattern: r`(\s*,\s*)*`, attack: ' , '.repeat(24) + '!', refusedAtSave: true, why: 'the bare form of the one above' },
  {
    pattern: '(.*a){24}',
    attack: 'a'.repeat(23) + 'b'.repeat(200),
    refusedAtSave: true,
    why: 'each of the 24 repetitions can end at any a: with only 23 a\'s every subset of them is tried (2^23), each scanning the b\'s after',
  },
  // Choices of matching nothing in a row: the ways multiply without a loop over the text.
  { pattern: 'a(?:x?|y?){24}b', attack: 'ac', refusedAtSave: true, why: 'each repetition can match nothing in two ways: 2^24 ways to fail on a two-character text' },
  // Loops sharing a run: n^k for k loops over a run of n, the search for a start counting as one.
  { pattern: r`\d*\d*\d*x`, attack: '1'.repeat(600), refusedAtSave: true, why: 'three loops over the same digits and a search that can start anywhere in the run: n^4 (issue 21)' },
  { pattern: r`\s+(.*)\s+\d`, attack: ' '.repeat(1_500) + 'x', refusedAtSave: true, why: 'three loops that can all take a space, unanchored: n^4' },
  { pattern: '.*.*.*=', attack: 'a'.repeat(1_500), refusedAtSave: true, why: 'three loops over anything, unanchored: n^4' },
  { pattern: r`x\s*\s*\s*\s*\s*\s*\s*\s*\s*\s*y`, attack: 'x' + ' '.repeat(40), refusedAtSave: true, why: 'ten loops over spaces: n^10, seconds on 40 spaces' },
  // Polynomial shapes real templates use: let through at save, bounded by the match-time budget.
  { pattern: r`(.*)\s+(\d+)$`, attack: ' '.repeat(5_000) + '!', refusedAtSave: false, why: 'the .*\\s+ shape of many templates: n^3 over a run of spaces, from every start' },
  { pattern: r`\s+$`, attack: ' '.repeat(100_000) + 'x', refusedAtSave: false, why: 'trailing white space, the classic trim: n^2' },
  { pattern: '.*.*=', attack: 'a'.repeat(5_000), refusedAtSave: false, why: 'two loops over anything, unanchored: n^3' },
  { pattern: r`Total\s+(.+)\s+EUR`, attack: 'Total' + ' '.repeat(5_000) + '!', refusedAtSave: false, why: 'a label, then \\s+(.+)\\s+ as in many invoice2data templates: n^3 after the label' },
  { pattern: r`^\s+(.+)\s+(\d+\.\d\d)$`, attack: ' '.repeat(5_000) + '!', refusedAtSave: false, why: 'a line item of the library (anchored \\s+(.+)\\s+): n^3' },
  { pattern: r`x\d*\d*\d*y`, attack: 'x' + '1'.repeat(3_000), refusedAtSave: false, why: 'three loops over digits after required text: n^3 from the one start' },
  {
    pattern: r`^(\d+)[ ]+(\w+)?[ ][ ]+(\d+)?[ ]+(\d+)?[ ]+(-?\d+\.\d\d)$`,
    attack: '1' + ' '.repeat(400) + '!',
    refusedAtSave: false,
    why: 'four column loops over spaces after ^, as in the Opal template of the library: n^4 from the one start',
  },
  { pattern: '^(.*?),(.*?),(.*?),(.*?)$', attack: ','.repeat(400) + '\n', refusedAtSave: false, why: 'CSV fields: four lazy loops that can all take commas, after ^: n^4' },
];
