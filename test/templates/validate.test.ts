import type { TemplateBody } from '../../src/templates/shorthand.js';
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { ApiError } from '../../src/errors.js';
import { compilePattern, translatePattern } from '../../src/templates/regex.js';
import { validateTemplate } from '../../src/templates/validate.js';

type TemplateCreate = TemplateBody;
type TemplateField = components['schemas']['TemplateField'];

const withField = (field: TemplateField, name = 'total_amount'): TemplateCreate => ({ name: 'ACME', keywords: ['ACME'], fields: { [name]: field } });

function messageOf(t: TemplateCreate): string {
  try {
    validateTemplate(t);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_request');
    return (err as ApiError).message;
  }
  throw new Error('the template was accepted');
}

describe('validateTemplate', () => {
  it('accepts a valid template with every parser', () => {
    expect(() =>
      validateTemplate({
        name: 'ACME',
        keywords: ['ACME', '(?i)invoice'],
        fields: {
          invoice_number: { parser: 'regex', regex: 'No\\.\\s*(?P<value>\\d+)' },
          total_amount: { parser: 'regex', regex: ['Total\\s+([\\d.,]+)', 'Sum\\s+([\\d.,]+)'], type: 'amount', group: 'last' },
          currency: { parser: 'static', value: 'EUR' },
          due_date: { parser: 'label', label: 'Due date', direction: 'below', type: 'date', formats: ['%d.%m.%Y'] },
          lines: { parser: 'lines', start: 'Items', end: 'Total', line: '^(?P<name>\\S.*?)\\s+(?P<price>\\d+\\.\\d\\d)$', types: { price: 'amount' } },
        },
        options: { replace: [['\\s+EUR', ' EUR']], date_formats: ['%B %d, %Y'] },
      }),
    ).not.toThrow();
  });

  it('names the pattern that does not compile', () => {
    expect(messageOf(withField({ parser: 'regex', regex: ['Total (\\d+)', 'Sum ((\\d+)'] }))).toMatch(/^fields\.total_amount\.regex\[1\]: invalid regular expression: /);
  });

  it('refuses patterns that can backtrack catastrophically', () => {
    expect(messageOf(withField({ parser: 'regex', regex: '(a+)+$' }))).toMatch(/^fields\.total_amount\.regex: regular expression may backtrack catastrophically/);
    expect(messageOf({ name: 'x', keywords: ['(\\w+\\s?)*$'], fields: { a: { parser: 'static', value: '1' } } })).toMatch(/^keywords\[0\]: .*backtrack/);
  });

  it('checks keywords as they are matched: without their spaces when the template removes whitespace', () => {
    const keywords = ['\\d* \\d* \\d*x'];
    expect(() => validateTemplate({ name: 'x', keywords, fields: { a: { parser: 'static', value: '1' } } })).not.toThrow();
    expect(messageOf({ name: 'x', keywords, options: { remove_whitespace: true }, fields: { a: { parser: 'static', value: '1' } } })).toMatch(/^keywords\[0\]: .*backtrack/);
  });

  it('accepts loops over alternating runs of a set and its complement, which cut the text one way only', () => {
    for (const source of ['^(?P<name>(\\S+(?:\\s\\S+)*))\\s+(?P<qty>\\d+)', '(\\w+(?:\\s+\\S+){1,8})\\s+x', '--- \\w+((?:\\s\\S+)*) ---']) {
      expect(() => compilePattern(source), source).not.toThrow();
    }
  });

  it('still refuses loops whose iterations can be cut from the text in several ways', () => {
    // Same side first and last, an optional atom, a mixed family, an escaped parenthesis, an atom repeated beside itself.
    for (const source of ['(\\w+\\W+\\w+)*$', '(\\s*\\S+)*$', '(\\S+\\s?)*$', '(\\w+ \\S+)*$', '(\\(\\s+\\S+)+$', '(\\s+\\s+)*$', '(a+)+$']) {
      expect(() => compilePattern(source), source).toThrow(/backtrack catastrophically/);
    }
  });

  it('requires a table field to name a group of its body', () => {
    const table = { parser: 'table' as const, start: 'Rooms', end: 'Booking', body: '(?<rooms>\\d+)', column: 'nights' };
    expect(messageOf(withField(table, 'nights'))).toBe('fields.nights.column: names no group of body, such as (?<nights>...)');
    expect(() => validateTemplate(withField({ ...table, column: 'rooms' }, 'rooms'))).not.toThrow();
  });

  it('checks every further lines rule, naming it by index', () => {
    const lines = { parser: 'lines' as const, start: 'a', end: 'b', line: '(?<qty>\\d+)', rules: [{ start: 'c', end: 'd', line: '(?<qty>\\d+)', types: { price: 'amount' as const } }] };
    expect(messageOf(withField(lines, 'lines'))).toBe('fields.lines.rules[0].types.price: names no group of line, first_line or last_line');
  });

  it('requires exactly one capture group in a regex field, or a group named value', () => {
    expect(messageOf(withField({ parser: 'regex', regex: 'Total \\d+' }))).toBe("fields.total_amount.regex: needs exactly one capture group (or a group named 'value'), it has 0");
    expect(messageOf(withField({ parser: 'regex', regex: '(Total) (\\d+)' }))).toMatch(/it has 2$/);
    expect(() => validateTemplate(withField({ parser: 'regex', regex: '(Total) (?<value>\\d+)' }))).not.toThrow();
  });

  it('refuses an unknown type, here and in lines types', () => {
    expect(messageOf(withField({ parser: 'regex', regex: '(\\d+)', type: 'money' as 'amount' }))).toMatch(/^fields\.total_amount\.type: unknown type 'money'/);
    const lines = { parser: 'lines' as const, start: 'a', end: 'b', line: '(?<qty>\\d+)', types: { qty: 'float' as 'amount' } };
    expect(messageOf(withField(lines, 'lines'))).toMatch(/^fields\.lines\.types\.qty: unknown type 'float'/);
  });

  it('refuses too many fields', () => {
    const fields = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, { parser: 'static' as const, value: 'x' }]));
    expect(messageOf({ name: 'x', keywords: ['x'], fields })).toBe('fields: at most 100 fields, got 101');
  });

  it('checks the members each parser needs', () => {
    expect(messageOf(withField({ parser: 'static' }))).toBe("fields.total_amount: a 'static' field needs 'value'");
    expect(messageOf(withField({ parser: 'label' }))).toBe("fields.total_amount: a 'label' field needs 'label'");
    expect(messageOf(withField({ parser: 'lines', start: 'a', line: '(?<x>.)' }))).toBe("fields.total_amount: a 'lines' field needs 'end'");
    expect(messageOf(withField({ parser: 'lines', start: 'a', end: 'b', line: '(.)' }))).toMatch(/^fields\.total_amount\.line: needs at least one named group/);
    expect(messageOf(withField({ parser: 'lines', start: 'a', end: 'b', line: '(?<x>.)', types: { y: 'amount' } }))).toMatch(/^fields\.total_amount\.types\.y: names no group/);
  });

  it('refuses field names that are not snake_case or contain dots', () => {
    expect(messageOf(withField({ parser: 'static', value: 'x' }, 'Total.Amount'))).toMatch(/^fields\.Total\.Amount: field names are snake_case/);
  });

  it('refuses unsupported strftime directives and Python-only constructs', () => {
    expect(messageOf({ ...withField({ parser: 'static', value: 'x' }), options: { date_formats: ['%d.%m.%Q'] } })).toBe('options.date_formats[0]: unsupported strftime directive %Q');
    expect(messageOf(withField({ parser: 'regex', regex: '(?x)(\\d+)' }))).toBe('fields.total_amount.regex: inline flag (?x) is not supported');
    expect(messageOf(withField({ parser: 'regex', regex: '(\\d+)(?(1)a|b)' }))).toMatch(/conditional groups/);
  });
});

describe('Python pattern translation', () => {
  it('turns named groups, backreferences and leading flags into JavaScript', () => {
    expect(translatePattern('(?is)(?P<n>a)(?P=n)')).toEqual({ source: '(?<n>a)\\k<n>', flags: 'is' });
    const c = compilePattern('(?i)total:\\s(?P<value>\\d+)');
    expect(c.regex.exec('TOTAL: 12')?.groups?.value).toBe('12');
  });

  it('keeps Python meanings JavaScript would read differently', () => {
    expect(compilePattern('(\\w+)').regex.exec('Grundgebühr')?.[1]).toBe('Grundgebühr');
    expect(compilePattern('a{,2}\\:').regex.test('aa:')).toBe(true);
    expect(compilePattern('(x{)').regex.test('x{')).toBe(true);
  });
});
