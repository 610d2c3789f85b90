import type { components } from '../../generated/openapi.js';
import { invalidRequest } from '../errors.js';
import { compilePattern, PatternError, type CompiledPattern } from './regex.js';
import { unknownDirective } from './values.js';
import type { TemplateBody } from './shorthand.js';

type TemplateField = components['schemas']['TemplateField'];
type RegexList = components['schemas']['RegexList'];
type LinesRule = components['schemas']['LinesRule'];

const FIELD_TYPES = new Set(['string', 'date', 'amount', 'integer']);
const MAX_FIELDS = 100;
/** Output names become `data` keys and `line_items.N.column` paths, hence no dots. */
export const FIELD_NAME = /^[a-z][a-z0-9_]{0,59}$/;

/** A template problem; `path` names the member, as the API's 400 message does. */
export class TemplateError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

export const patternsOf = (list: RegexList | undefined): string[] => (list === undefined ? [] : Array.isArray(list) ? list : [list]);

/** A keyword as it is matched: without its spaces when the template removes whitespace from the text, or "WS Retail" could never match. */
export const keywordAsMatched = (source: string, options: { remove_whitespace?: boolean } | undefined): string => (options?.remove_whitespace ? source.replace(/ +/g, '') : source);

/**
 * Checking one pattern for backtracking is bounded (about 20 ms at worst), but a template may hold
 * two thousand; past this much checking on the event loop a template is refused as a whole.
 */
const CHECK_BUDGET_MS = 250;
/** When the template being checked must be done; checking is synchronous, so one template at a time. */
let checkDeadline = Infinity;

function compiled(list: RegexList, path: string): CompiledPattern[] {
  const sources = patternsOf(list);
  return sources.map((source, i) => {
    const at = Array.isArray(list) ? `${path}[${i}]` : path;
    if (performance.now() > checkDeadline) {
      throw new TemplateError(at, `checking the template's patterns took more than ${CHECK_BUDGET_MS} ms; use fewer or simpler patterns`);
    }
    try {
      return compilePattern(source);
    } catch (err) {
      if (err instanceof PatternError) throw new TemplateError(at, err.message);
      throw err;
    }
  });
}

function checkType(type: string | undefined, path: string): void {
  if (type !== undefined && !FIELD_TYPES.has(type)) throw new TemplateError(path, `unknown type '${type}'; use one of ${[...FIELD_TYPES].join(', ')}`);
}

function checkFormats(formats: string[] | undefined, path: string): void {
  (formats ?? []).forEach((format, i) => {
    const directive = unknownDirective(format);
    if (directive) throw new TemplateError(`${path}[${i}]`, `unsupported strftime directive ${directive}`);
  });
}

function require(field: TemplateField, member: keyof TemplateField, path: string): void {
  if (field[member] === undefined) throw new TemplateError(path, `a '${field.parser}' field needs '${member}'`);
}

function checkRegexField(field: TemplateField, path: string): void {
  require(field, 'regex', path);
  compiled(field.regex!, `${path}.regex`).forEach((c, i) => {
    const at = Array.isArray(field.regex) ? `${path}.regex[${i}]` : `${path}.regex`;
    if (c.groups !== 1 && !c.names.includes('value')) {
      throw new TemplateError(at, `needs exactly one capture group (or a group named 'value'), it has ${c.groups}`);
    }
  });
}

function checkLinesRule(rule: LinesRule, path: string): void {
  const groups = new Set<string>();
  let rowGroups = 0;
  for (const member of ['start', 'end', 'line', 'first_line', 'last_line', 'skip_line'] as const) {
    const list = rule[member];
    if (list === undefined) continue;
    for (const c of compiled(list, `${path}.${member}`)) {
      if (member === 'line' || member === 'first_line') rowGroups += c.names.length;
      if (member === 'line' || member === 'first_line' || member === 'last_line') c.names.forEach((n) => groups.add(n));
    }
  }
  // A `line` pattern without names may only consume detail lines, as long as `first_line` names the columns.
  if (rowGroups === 0) throw new TemplateError(`${path}.line`, 'needs at least one named group, such as (?<description>...), in line or first_line');
  for (const [name, type] of Object.entries(rule.types ?? {})) {
    if (!groups.has(name)) throw new TemplateError(`${path}.types.${name}`, 'names no group of line, first_line or last_line');
    checkType(type, `${path}.types.${name}`);
  }
}

function checkLinesField(field: TemplateField, path: string): void {
  for (const member of ['start', 'end', 'line'] as const) require(field, member, path);
  checkLinesRule(field as LinesRule, path);
  (field.rules ?? []).forEach((rule, i) => checkLinesRule(rule, `${path}.rules[${i}]`));
}

function checkTableField(field: TemplateField, path: string): void {
  for (const member of ['start', 'end', 'body', 'column'] as const) require(field, member, path);
  compiled(field.start!, `${path}.start`);
  compiled(field.end!, `${path}.end`);
  const named = compiled(field.body!, `${path}.body`).some((c) => c.names.includes(field.column!));
  if (!named) throw new TemplateError(`${path}.column`, `names no group of body, such as (?<${field.column}>...)`);
}

/** Checks one field rule, throwing a `TemplateError` naming the member at fault. */
export function checkField(name: string, field: TemplateField): void {
  const path = `fields.${name}`;
  if (!FIELD_NAME.test(name)) throw new TemplateError(path, 'field names are snake_case: a lowercase letter, then lowercase letters, digits or underscores (at most 60)');
  checkType(field.type, `${path}.type`);
  checkFormats(field.formats, `${path}.formats`);
  switch (field.parser) {
    case 'regex':
      return checkRegexField(field, path);
    case 'static':
      return require(field, 'value', path);
    case 'label':
      return require(field, 'label', path);
    case 'lines':
      return checkLinesField(field, path);
    case 'table':
      return checkTableField(field, path);
    default:
      throw new TemplateError(`${path}.parser`, `unknown parser '${String(field.parser)}'`);
  }
}

/** The checks of a template beyond its JSON schema: patterns, group counts, names, formats. */
export function checkTemplate(t: TemplateBody): void {
  // Checked as they will be matched: "\d* \d* \d*x" is harmless until its spaces go.
  const asMatched = (list: RegexList): RegexList => (Array.isArray(list) ? list.map((k) => keywordAsMatched(k, t.options)) : keywordAsMatched(list, t.options));
  compiled(asMatched(t.keywords), 'keywords');
  if (t.exclude_keywords?.length) compiled(asMatched(t.exclude_keywords), 'exclude_keywords');
  (t.options?.replace ?? []).forEach(([pattern], i) => compiled(pattern!, `options.replace[${i}][0]`));
  checkFormats(t.options?.date_formats, 'options.date_formats');
  const names = Object.keys(t.fields);
  if (names.length === 0) throw new TemplateError('fields', 'a template needs at least one field');
  if (names.length > MAX_FIELDS) throw new TemplateError('fields', `at most ${MAX_FIELDS} fields, got ${names.length}`);
  for (const name of names) checkField(name, t.fields[name]!);
}

/**
 * `checkTemplate` for the API: a problem is `400 invalid_request` naming the member, and a tenant's
 * template gets a bounded share of the event loop (built-in and converted templates are trusted).
 */
export function validateTemplate(t: TemplateBody): void {
  checkDeadline = performance.now() + CHECK_BUDGET_MS;
  try {
    checkTemplate(t);
  } catch (err) {
    if (err instanceof TemplateError) throw invalidRequest(err.message);
    throw err;
  } finally {
    checkDeadline = Infinity;
  }
}
