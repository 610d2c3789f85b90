import { parse } from 'yaml';
import type { components } from '../../generated/openapi.js';
import { docexFieldName } from './field-names.js';
import { compilePattern, PatternError } from './regex.js';
import { checkField, checkTemplate, TemplateError } from './validate.js';
import { unknownDirective } from './values.js';
import type { TemplateBody } from './shorthand.js';

type TemplateField = components['schemas']['TemplateField'];
type LinesRule = components['schemas']['LinesRule'];
type TemplateOptions = components['schemas']['TemplateOptions'];
type FieldType = components['schemas']['FieldType'];
type Group = NonNullable<TemplateField['group']>;

export interface Conversion {
  template: TemplateBody | null;
  /** Parts left out, each with the reason; the template still converts. */
  dropped: string[];
  /** Why the template as a whole could not be converted. */
  error?: string;
}

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v);

const TYPES: Record<string, FieldType> = { int: 'integer', float: 'amount', date: 'date', str: 'string', string: 'string' };
const GROUPS = new Set<Group>(['first', 'last', 'sum', 'min', 'max', 'join']);
/** invoice2data's defaults, written out so the converted template reads numbers and currencies as the original did. */
const DEFAULT_CURRENCY = 'EUR';
const DEFAULT_DECIMAL_SEPARATOR = '.';
/** invoice2data's required fields when a template names none. */
const DEFAULT_REQUIRED = ['date', 'amount', 'invoice_number', 'issuer'];
const MAX_PATTERNS = 20;
const MAX_PATTERN_LENGTH = 2000;
/** A lines field's further rules, as the API allows. */
const MAX_RULES = 10;

class Skip extends Error {}

/**
 * Reads a template file keeping every scalar as the text it was written as ("failsafe" schema):
 * PyYAML, which invoice2data uses, reads "04080176" as text where YAML 1.2 would make it a
 * number, and a template's patterns and values are text anyway. A repeated key wins, as in
 * PyYAML; several library templates rely on it. JSON templates are YAML too.
 */
export function parseInvoice2data(text: string): unknown {
  return parse(text, { schema: 'failsafe', uniqueKeys: false });
}

const truthy = (v: unknown) => v === true || (typeof v === 'string' && /^(true|yes|on)$/i.test(v));

function strings(v: unknown, what: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (!list.every((s) => typeof s === 'string' || typeof s === 'number')) throw new Skip(`${what} is not a string or a list of strings`);
  return list.map(String);
}

/**
 * `re.findall` returns the whole match of a pattern without groups, which is how invoice2data
 * templates pick fixed text such as a VAT number: such a pattern becomes one group around it,
 * after any leading inline flags.
 */
function withOneGroup(source: string): string {
  let groups: number;
  try {
    groups = compilePattern(source).groups;
  } catch (err) {
    if (err instanceof PatternError) throw new Skip(err.message);
    throw err;
  }
  if (groups === 1) return source;
  if (groups > 1) throw new Skip(`a pattern has ${groups} capture groups, which invoice2data ignores the field for`);
  const flags = /^(\(\?[a-zA-Z]+\))*/.exec(source)![0];
  return `${flags}(${source.slice(flags.length)})`;
}

function patternList(v: unknown, what: string): string | string[] {
  const list = strings(v, what);
  if (list.length > MAX_PATTERNS) throw new Skip(`${what} has ${list.length} patterns, at most ${MAX_PATTERNS}`);
  if (list.some((p) => p.length > MAX_PATTERN_LENGTH)) throw new Skip(`${what} has a pattern over ${MAX_PATTERN_LENGTH} characters`);
  return list.length === 1 ? list[0]! : list;
}

function fieldType(v: unknown): FieldType | undefined {
  if (v === undefined) return undefined;
  const type = TYPES[String(v)];
  if (!type) throw new Skip(`type '${String(v)}' is not one of int, float, date, str`);
  return type;
}

function group(v: unknown): Group | undefined {
  if (v === undefined) return undefined;
  if (!GROUPS.has(v as Group)) throw new Skip(`group '${String(v)}' is not supported`);
  return v as Group;
}

function regexField(regex: unknown, type: FieldType | undefined, grouping: Group | undefined): TemplateField {
  const list = patternList(regex, 'regex');
  const converted = Array.isArray(list) ? list.map(withOneGroup) : withOneGroup(list);
  return { parser: 'regex', regex: converted, ...(type ? { type } : {}), ...(grouping ? { group: grouping } : {}) };
}

/** Named groups of the patterns; one that does not compile names none here and is reported when the template is checked. */
function groupNames(list: string | string[] | undefined): string[] {
  return (list === undefined ? [] : Array.isArray(list) ? list : [list]).flatMap((source) => {
    try {
      return compilePattern(source).names;
    } catch (err) {
      if (err instanceof PatternError) return [];
      throw err;
    }
  });
}

/**
 * One rule of a lines field. invoice2data only types the groups a row has, so `types` naming
 * no group of the rule's row patterns have no effect there and are left out here.
 */
function linesRule(rule: unknown): LinesRule {
  if (!isDict(rule)) throw new Skip('a lines rule is not a mapping');
  const patterns: Partial<LinesRule> = {};
  for (const member of ['start', 'end', 'line', 'first_line', 'last_line', 'skip_line'] as const) {
    if (rule[member] !== undefined) patterns[member] = patternList(rule[member], member);
  }
  const named = new Set([...groupNames(patterns.line), ...groupNames(patterns.first_line), ...groupNames(patterns.last_line)]);
  const types = isDict(rule.types) ? Object.entries(rule.types).filter(([k]) => named.has(k)) : [];
  if (patterns.start === undefined || patterns.end === undefined || patterns.line === undefined) throw new Skip('a lines rule needs start, end and line');
  return { ...patterns, start: patterns.start, end: patterns.end, line: patterns.line, ...(types.length ? { types: Object.fromEntries(types.map(([k, v]) => [k, fieldType(v)!])) } : {}) };
}

/** A lines field from invoice2data's rules: the first is the field's own, the others follow as `rules`. */
function linesField(rules: unknown[], dropped: string[], key: string): TemplateField {
  const [own, ...more] = rules.map(linesRule);
  if (more.length > MAX_RULES) dropped.push(`${key}: ${more.length - MAX_RULES} rules after the first ${MAX_RULES + 1}`);
  return { parser: 'lines', ...own!, ...(more.length ? { rules: more.slice(0, MAX_RULES) } : {}) };
}

/** invoice2data's tables plugin types a column by its name before its `types`: dates, then amounts. */
function columnType(name: string, table: Dict): FieldType | undefined {
  if (name.startsWith('date') || name.endsWith('date')) return 'date';
  if (name.startsWith('amount')) return 'amount';
  const settings = isDict(table.fields) && isDict(table.fields[name]) ? table.fields[name] : {};
  return fieldType(isDict(table.types) && table.types[name] !== undefined ? table.types[name] : settings.type);
}

/** One `table` field for each named group of an invoice2data table's `body`. */
function tableFields(table: unknown): [string, TemplateField][] {
  if (!isDict(table)) throw new Skip('a table is not a mapping');
  if (table.start === undefined || table.end === undefined || table.body === undefined) throw new Skip('a table needs start, end and body');
  if (table.line_separator !== undefined && table.line_separator !== '\\n') throw new Skip('a line_separator other than \\n is not supported');
  const start = patternList(table.start, 'start');
  const end = patternList(table.end, 'end');
  const body = patternList(table.body, 'body');
  const columns = (Array.isArray(body) ? body : [body]).flatMap((source) => {
    try {
      return compilePattern(source).names;
    } catch (err) {
      if (err instanceof PatternError) throw new Skip(`body: ${err.message}`);
      throw err;
    }
  });
  return [...new Set(columns)].map((column) => {
    const settings = isDict(table.fields) && isDict(table.fields[column]) ? table.fields[column] : {};
    const type = columnType(column, table);
    const grouping = group(settings.group);
    return [column, { parser: 'table', start, end, body, column, ...(type ? { type } : {}), ...(grouping ? { group: grouping } : {}) }];
  });
}

/** One invoice2data field, in its modern (`parser:`) or legacy (plain regex, `static_` prefix, `sum_amount`) form. */
function convertField(key: string, v: unknown, dropped: string[]): [string, TemplateField] {
  if (isDict(v)) {
    const type = fieldType(v.type);
    switch (v.parser) {
      case 'regex':
        return [key, regexField(v.regex, type, group(v.group))];
      case 'static':
        if (v.value === undefined || v.value === null) throw new Skip('static field without a value');
        return [key, { parser: 'static', value: String(v.value), ...(type ? { type } : {}) }];
      case 'lines':
        return [key, linesField(Array.isArray(v.rules) ? v.rules : [v], dropped, `fields.${key}.rules`)];
      default:
        throw new Skip(`parser '${String(v.parser)}' is not supported`);
    }
  }
  if (key.startsWith('static_')) return [key.slice('static_'.length), { parser: 'static', value: String(v) }];
  if (key.startsWith('sum_amount') && Array.isArray(v)) return [key.slice('sum_'.length), regexField(v, 'amount', 'sum')];
  if (key.startsWith('date') || key.endsWith('date')) return [key, regexField(v, 'date', 'first')];
  if (key.startsWith('amount')) return [key, regexField(v, 'amount', 'first')];
  return [key, regexField(v, undefined, undefined)];
}

function convertOptions(raw: unknown, dropped: string[]): TemplateOptions {
  const o = isDict(raw) ? raw : {};
  const options: TemplateOptions = {};
  const currency = String(o.currency ?? DEFAULT_CURRENCY).toUpperCase();
  if (/^[A-Z]{3}$/.test(currency)) options.currency = currency;
  else dropped.push(`options.currency: '${currency}' is not an ISO 4217 code`);
  const formats = o.date_formats === undefined ? [] : strings(o.date_formats, 'options.date_formats');
  const usable = formats.filter((f) => !unknownDirective(f) && f.length <= 50);
  if (usable.length < formats.length) dropped.push(`options.date_formats: ${formats.length - usable.length} with unsupported directives`);
  if (usable.length) options.date_formats = usable.slice(0, 20);
  const separator = String(o.decimal_separator ?? DEFAULT_DECIMAL_SEPARATOR);
  if (separator === '.' || separator === ',') options.decimal_separator = separator;
  else dropped.push(`options.decimal_separator: '${separator}' is neither '.' nor ','`);
  const languages = o.languages === undefined ? [] : strings(o.languages, 'options.languages').filter((l) => /^[a-z]{2,3}$/.test(l));
  if (languages.length) options.languages = languages.slice(0, 10);
  for (const flag of ['remove_whitespace', 'remove_accents', 'lowercase'] as const) if (truthy(o[flag])) options[flag] = true;
  if (Array.isArray(o.replace)) {
    const pairs = o.replace.filter((p): p is [string, string] => Array.isArray(p) && p.length === 2).map(([a, b]) => [String(a), String(b)]);
    if (pairs.length) options.replace = pairs.slice(0, 20);
  }
  return options;
}

/**
 * Converts a parsed invoice2data template into a docex template, mechanically: same keywords,
 * same patterns (Python syntax is accepted by docex), field names mapped to docex's canonical
 * ones. Parts docex cannot express are left out and listed in `dropped`.
 */
export function convertInvoice2data(raw: unknown, source: string): Conversion {
  const dropped: string[] = [];
  if (!isDict(raw)) return { template: null, dropped, error: 'not a mapping' };
  try {
    const keywords = strings(raw.keywords ?? [], 'keywords');
    if (keywords.length === 0) return { template: null, dropped, error: 'no keywords' };
    const issuer = String(raw.issuer ?? keywords[0]);
    const required = new Set(Array.isArray(raw.required_fields) ? raw.required_fields.map(String) : DEFAULT_REQUIRED);
    const fields: Record<string, TemplateField> = {};
    // Tables run after the fields in invoice2data and overwrite what they found.
    const put = (key: string, [name, field]: [string, TemplateField], overwrite = false) => {
      try {
        const docexName = docexFieldName(name);
        if (fields[docexName] && !overwrite) throw new Skip(`maps to '${docexName}', already given by another field`);
        if (!required.has(name)) field.required = false;
        checkField(docexName, field);
        fields[docexName] = field;
      } catch (err) {
        if (err instanceof Skip || err instanceof TemplateError) dropped.push(`${key}: ${err.message}`);
        else throw err;
      }
    };
    const add = (key: string, value: unknown) => {
      try {
        put(`fields.${key}`, convertField(key, value, dropped));
      } catch (err) {
        if (err instanceof Skip) dropped.push(`fields.${key}: ${err.message}`);
        else throw err;
      }
    };
    for (const [key, value] of Object.entries(isDict(raw.fields) ? raw.fields : {})) add(key, value);
    if (raw.lines !== undefined) {
      add('lines', { parser: 'lines', rules: Array.isArray(raw.lines) ? raw.lines : [raw.lines] });
    }
    (raw.tables === undefined ? [] : Array.isArray(raw.tables) ? raw.tables : [raw.tables]).forEach((table, i) => {
      try {
        for (const column of tableFields(table)) put(`tables[${i}].${column[0]}`, column, true);
      } catch (err) {
        if (err instanceof Skip) dropped.push(`tables[${i}]: ${err.message}`);
        else throw err;
      }
    });
    if (!fields.vendor_name) fields.vendor_name = { parser: 'static', value: issuer.slice(0, 1000), required: false };

    const template: TemplateBody = {
      name: issuer.slice(0, 200),
      description: `Converted from the invoice2data template ${source} (MIT licence).`,
      keywords,
      ...(raw.exclude_keywords !== undefined ? { exclude_keywords: strings(raw.exclude_keywords, 'exclude_keywords') } : {}),
      ...(Number.isFinite(Number(raw.priority ?? NaN)) ? { priority: Math.max(0, Math.min(100, Math.round(Number(raw.priority)))) } : {}),
      fields,
      options: convertOptions(raw.options, dropped),
    };
    checkTemplate(template);
    return { template, dropped };
  } catch (err) {
    if (err instanceof Skip || err instanceof TemplateError) return { template: null, dropped, error: err.message };
    throw err;
  }
}
