import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertInvoice2data, parseInvoice2data } from '../../src/templates/invoice2data.js';
import { compilePattern, PatternError } from '../../src/templates/regex.js';
import { REDOS_PATTERNS } from '../hostile/redos-patterns.js';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';

const REFUSED = 'regular expression may backtrack catastrophically: ';

/** What the message of each refused corpus pattern says after REFUSED: the cause, naming the parts as written and where they are. */
const CAUSES: Record<string, RegExp> = {
  '(a|a)*b': /^alternatives 'a' and 'a' inside the repeated group at position 0 can match the same text \('a'\), so a failed match backtracks exponentially; make the alternatives exclusive$/,
  '(a|ab)*c': /^alternatives 'a' and 'ab' inside the repeated group at position 0 can start with the same text \('a'\), so a failed match retries both at every repetition/,
  '(\\w|\\d)+$': /^alternatives '\\w' and '\\d' inside the repeated group at position 0 can match the same text \('0'\)/,
  '(\\d|[0-9a-f])+$': /^alternatives '\\d' and '\[0-9a-f\]' inside the repeated group at position 0 can match the same text/,
  '(\\d|[0-9a-f])+': /^alternatives '\\d' and '\[0-9a-f\]' inside the repeated group at position 0 can match the same text/,
  '([\\d.]|[0-9,])+$': /^alternatives '\[\\d\.\]' and '\[0-9,\]' inside the repeated group at position 0 can match the same text/,
  // Positions count in the pattern as written, inline flags included.
  '(?i)(k|K)+$': /^alternatives 'k' and 'K' inside the repeated group at position 4 can match the same text/,
  '^(a|a?)+$': /^alternatives 'a' and 'a\?' inside the repeated group at position 1 can match the same text/,
  '(a|a?)+': /^alternatives 'a' and 'a\?' inside the repeated group at position 0/,
  '(?=(a|a)*b)': /^alternatives 'a' and 'a' inside the repeated group at position 3 can match the same text/,
  '(a+)+$': /^'a\+' at position 1 repeats inside the repeated group at position 0 and both can repeat the same text \('a'\), so they can share it out in exponentially many ways/,
  '(a+)+': /^'a\+' at position 1 repeats inside the repeated group at position 0/,
  '^([a-z]+)*$': /^'\[a-z\]\+' at position 2 repeats inside the repeated group at position 1/,
  '([a-z]+)*': /^'\[a-z\]\+' at position 1 repeats inside the repeated group at position 0/,
  '^(\\d+)*$': /^'\\d\+' at position 2 repeats inside the repeated group at position 1/,
  '(\\d+[.,]?)+$': /^'\\d\+' at position 1 repeats inside the repeated group at position 0/,
  '^(\\w+\\s?)*$': /^'\\w\+' at position 2 repeats inside the repeated group at position 1/,
  '(x+x+)+y': /^'x\+' at position 1 and 'x\+' at position 3 inside the repeated group at position 0 can both match the same text \('x'\)/,
  '(\\s*,\\s*)*$': /^'\\s\*' at position 1 and '\\s\*' at position 5 inside the repeated group at position 0 can both match the same text \(a space\)/,
  '(\\s*,\\s*)*': /^'\\s\*' at position 1 and '\\s\*' at position 5 inside the repeated group at position 0/,
  '(.*a){24}': /^'\.\*' at position 1 and 'a' at position 3 inside the repeated group at position 0 can both match the same text \('a'\)/,
  'a(?:x?|y?){24}b': /^the pattern can match the empty text between 'a' at position 0 and 'b' at position 14 in 16777216 ways, so a failed match tries them all/,
  '\\d*\\d*\\d*x':
    /^'\\d\*' at position 0, '\\d\*' at position 3 and '\\d\*' at position 6 can all repeat the same character \('0'\) with nothing between them that must match another, and a match can start anywhere in a run of it, .* to the power 4;/,
  '\\s+(.*)\\s+\\d': /^'\\s\+' at position 0, '\.\*' at position 4 and '\\s\+' at position 7 can all repeat the same character \(a space\) .* to the power 4;/,
  '.*.*.*=': /^'\.\*' at position 0, '\.\*' at position 2 and '\.\*' at position 4 can all repeat the same character .* to the power 4;/,
  'x\\s*\\s*\\s*\\s*\\s*\\s*\\s*\\s*\\s*\\s*y': /^'\\s\*' at position 1, .* and '\\s\*' at position 28 can all repeat the same character \(a space\) with nothing between them that must match another, so .* to the power 10;/,
};

/** Patterns of the invoice2data template library that the check must keep accepting, including its polynomial shapes. */
const LIBRARY_PATTERNS = [
  'Vendido\\s+por\\s+(.+)\\s+IVA\\s+[A-Z0-9]+',
  'Faktura VAT\\s+(.*?)\\s+oryginał',
  '^\\s+(?P<vat_rate>.+)\\s+(?P<net>\\d+\\.\\d\\d)\\s+(?P<vat>\\d+\\.\\d\\d)\\s+(?P<gross>\\d+\\.\\d\\d)$',
  '(?i)(Amex)\\S?\\s+\\S*.*\\s+\\d+.\\d{1,2}',
  'TOTAAL.?\\s+\\w*\\s+.?\\s+(\\d{1,3}[.,]\\d{2})',
  'Do zapłaty:\\s+-*\\s+([\\d\\s]+,\\d\\d)',
  '^\\s*(?P<name>.+?)\\s+(?P<total_net>\\d[\\d\\s]*,\\d+)\\s+(?P<vat_rate>\\d+)\\s*%\\s+(?P<total_vat>\\d[\\d\\s]*,\\d+)\\s+(?P<total_gross>\\d[\\d\\s]*,\\d+)\\s*$',
  '^(?P<tx_number>\\d{1,10})[ ]{10,22}(?P<day_of_week>(Mon|Tue|Wed|Thu|Fri|Sat|Sun))[ ]{6}(?P<timestamp>\\d\\d:\\d\\d)[ ]{18}(?P<details>\\S+( \\S+)*)[ ]{6,32}(?P<journey_number>(\\d{1,3})?)[ ]+(?P<fare>(Travel Reward|Off-peak|Default fare|Day Cap)?)[ ][ ]+(?P<full_fare>(\\d{1,3}.\\d\\d)?)[ ]+(?P<discount>(\\d{1,3}.\\d\\d)?)[ ]+(?P<amount>-?\\d{1,3}.\\d\\d)$',
  '\\d{2}/\\d{2}/\\d{4}.+(\\d{2}/\\d{2}/\\d{4})',
  'IBAN\\s+([A-Z]{2}\\d{2}?\\w{4}?\\d{4}?\\d{4}?\\d{0,2})',
  '^(?P<name>(\\S+(?:\\s\\S+)*))\\s+(?P<qty>\\d+)',
  '(?P<supplier_name>[\\S ]+?)\\s{4,}(?P<customer_name>[\\S ]+)',
  '(?P<code>\\d+)\\s{6,7}(?P<name>.+)\\s{5,22}(?P<mnd>\\d+\\s\\w+[.])?\\s{10,40}(?P<qty>\\d+)$',
  '\\s+\\s{20}(.+[.]nl)',
  '(?i)(?:total|summe|montant)\\s*:?\\s*(\\d+[.,]\\d\\d)',
];

function causeOf(source: string): string {
  try {
    compilePattern(source);
  } catch (err) {
    expect(err).toBeInstanceOf(PatternError);
    return (err as Error).message;
  }
  throw new Error(`${source} was accepted`);
}

describe('the save-time backtracking check', () => {
  it('has a corpus of at least 20 patterns, every one the issue names among them, each with an attack', () => {
    expect(REDOS_PATTERNS.length).toBeGreaterThanOrEqual(20);
    const patterns = REDOS_PATTERNS.map((e) => e.pattern);
    for (const named of ['(a|a)*b', '(a|ab)*c', '(\\w|\\d)+$', '\\d*\\d*\\d*x', '(\\d|[0-9a-f])+', '(a+)+', '(a|a?)+', '([a-z]+)*', '(\\s*,\\s*)*$', '(.*)\\s+(\\d+)$']) {
      expect(patterns, named).toContain(named);
    }
    expect(patterns.some((p) => /^\(\.\*a\)\{\d+\}$/.test(p))).toBe(true);
    expect(new Set(patterns).size).toBe(patterns.length);
    for (const e of REDOS_PATTERNS) expect(e.attack.length, e.pattern).toBeGreaterThan(0);
  });

  it.each(REDOS_PATTERNS.filter((e) => e.refusedAtSave))('refuses $pattern, saying why', ({ pattern }) => {
    const message = causeOf(pattern);
    expect(message.startsWith(REFUSED), message).toBe(true);
    expect(CAUSES[pattern], `no expected cause for ${pattern}`).toBeDefined();
    expect(message.slice(REFUSED.length)).toMatch(CAUSES[pattern]!);
  });

  it.each(REDOS_PATTERNS.filter((e) => !e.refusedAtSave))('lets $pattern through to the match-time budget', ({ pattern }) => {
    expect(() => compilePattern(pattern)).not.toThrow();
  });

  it('keeps accepting the patterns of the template library, polynomial shapes included', () => {
    for (const source of LIBRARY_PATTERNS) expect(() => compilePattern(source), source).not.toThrow();
  });

  it('refuses no more of the library fixtures than before: the same two parts, for nested repetition', () => {
    const dir = path.resolve(import.meta.dirname, '../fixtures/invoice2data/templates');
    const files = (d: string): string[] => readdirSync(d).flatMap((f) => (statSync(path.join(d, f)).isDirectory() ? files(path.join(d, f)) : [path.join(d, f)]));
    const refused = files(dir)
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .flatMap((f) => {
        const { template, dropped } = convertInvoice2data(parseInvoice2data(readFileSync(f, 'utf8')), path.basename(f));
        expect(template, f).not.toBeNull();
        return dropped.filter((d) => d.includes('backtrack')).map((d) => `${path.basename(f)}: ${d.split(':')[0]}`);
      });
    expect(refused.sort()).toEqual(['com.oyo.invoice.yml: tables[1]', 'nl.goos.yml: fields.lines']);
  });

  it('refuses shapes that differ only in being one edit away from the ones above', () => {
    // Overlap through case-insensitivity, a class, a lookbehind, and choices of nothing in a row.
    for (const source of ['(?i)(é|É)+$', '(€|[€-₭])+$', '(?<=(a|a)*)x', `a${'(?:|)'.repeat(12)}b`, '(?:x|y|xy)*z']) {
      expect(causeOf(source), source).toContain(REFUSED);
    }
    // Exclusive alternatives, alternating runs, loops over different text, and three loops after required text are fine.
    for (const source of ['(?:\\d|[a-f])+$', '(?:\\s+\\S+)*$', '(?:ab|cd)*(?:ab|cd)*', '(a|b)*', 'x\\d*\\d*y']) {
      expect(() => compilePattern(source), source).not.toThrow();
    }
  });

  it('stays within its step budget on a hostile 2,000-character pattern', () => {
    const started = performance.now();
    expect(causeOf(`(?:${'.?'.repeat(990)})*x`)).toBe(`${REFUSED}it has too many repetitions and alternatives to be checked; simplify it`);
    // The previous check ran this pattern on the event loop for more than ten minutes.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('counts capture groups by reading the pattern, not running it', () => {
    const c = compilePattern('(a)(?:b)(?P<n>c)(?=d)(?!e)(?<=f)(?<!g)[(]\\((?P<m>h)[\\](]');
    expect(c).toMatchObject({ groups: 3, names: ['n', 'm'] });
    expect(c.regex.exec('abcdhf(')).toBeNull();
  });
});

describe('the save-time backtracking check through the API', () => {
  let api: ApiServer;
  let key: string;

  beforeAll(async () => {
    api = await startApiServer(databases.find((d) => d.name === 'sqlite')!);
    key = (await api.newKey({ plan: 'business' })).secret;
  });
  afterAll(async () => {
    await api?.close();
  });

  const create = (keywords: string[], regex = 'Total: (\\d+)') =>
    api.call('createTemplate', 'POST', '/v1/templates', { key, body: { name: 'Hostile', keywords, fields: { total_amount: { parser: 'regex', regex } } } });

  it('answers 400 invalid_request naming the member and the cause for every refused pattern', async () => {
    for (const { pattern } of REDOS_PATTERNS.filter((e) => e.refusedAtSave)) {
      const res = await create(['ACME'], pattern);
      expect(res.status, pattern).toBe(400);
      const { error } = res.body as { error: { code: string; message: string } };
      expect(error.code, pattern).toBe('invalid_request');
      expect(error.message, pattern).toContain(`fields.total_amount.regex: ${REFUSED}`);
      expect(error.message.slice(error.message.indexOf(REFUSED) + REFUSED.length), pattern).toMatch(CAUSES[pattern]!);
    }
  });

  it('refuses a keyword the same way, and saves templates whose patterns are left to the budget', async () => {
    const refused = await create(['ACME', '(a|a)*b']);
    expect(refused.status).toBe(400);
    expect((refused.body as { error: { message: string } }).error.message).toMatch(/^keywords\[1\]: regular expression may backtrack catastrophically: alternatives 'a' and 'a'/);
    const saved = await create(REDOS_PATTERNS.filter((e) => !e.refusedAtSave).map((e) => e.pattern), LIBRARY_PATTERNS[0]);
    expect(saved.status).toBe(201);
  });
});
