import type { components } from '../../generated/openapi.js';
import { dateOrderOf, currencyOf, type DateOrder } from '../extraction/normalise.js';
import type { DocumentText, FoundField, Word } from '../extraction/types.js';
import { union } from '../extraction/layout.js';
import { findByLabel } from './label.js';
import { parseLines } from './lines.js';
import { tableColumn } from './tables.js';
import { UNECE_TABLES, withUneceCode } from './unece.js';
import { cachedPattern } from './regex.js';
import { locate, MAX_TEMPLATE_TEXT, prepare, templateText, type Location, type TemplateText } from './text.js';
import { keywordAsMatched, patternsOf } from './validate.js';
import type { TemplateBody } from './shorthand.js';
import { coerce, formatAmount, formOf, type TypedValue, type ValueContext } from './values.js';

type Template = components['schemas']['Template'];
type TemplateField = components['schemas']['TemplateField'];
type TemplateOptions = components['schemas']['TemplateOptions'];
/** What applying a template needs: a stored template or one being tried out. */
export type TemplateRules = Pick<TemplateBody, 'name' | 'keywords' | 'exclude_keywords' | 'fields' | 'options'>;

/** A rule the template states outright is trusted above a generic guess; OCR doubts lower it. */
const CONFIDENCE = { static: 99, regex: 97, lines: 95, label: 93, currency: 90 } as const;

/**
 * What a template's patterns are doing, reported before each rule runs: the patterns are the
 * tenant's, so one of them may never finish, and whoever stops it can then name the rule.
 * `step` is a field's index in `fields`, or one of the STEP_ constants.
 */
export type OnStep = (step: number) => void;
export const STEP_REPLACE = -1;
export const STEP_KEYWORDS = -2;
export const STEP_EXCLUDE = -3;

/** The rule a step stands for, as the template names it. */
export function stepName(t: TemplateRules, step: number): string {
  if (step === STEP_REPLACE) return 'options.replace';
  if (step === STEP_KEYWORDS) return 'keywords';
  if (step === STEP_EXCLUDE) return 'exclude_keywords';
  return Object.keys(t.fields)[step] ?? `rule ${step + 1}`;
}

/**
 * Every keyword (a regex) found in the prepared text and no exclude keyword, as invoice2data
 * decides. Keywords lose their spaces when the text does (`remove_whitespace`), or "WS Retail"
 * could never match.
 */
export function matchesTemplate(t: TemplateRules, text: string, onStep?: OnStep): boolean {
  const options = t.options ?? {};
  onStep?.(STEP_REPLACE);
  const prepared = prepare(text.slice(0, MAX_TEMPLATE_TEXT), options);
  const found = (source: string) => cachedPattern(keywordAsMatched(source, options)).regex.test(prepared);
  onStep?.(STEP_KEYWORDS);
  if (!t.keywords.every(found)) return false;
  onStep?.(STEP_EXCLUDE);
  return !(t.exclude_keywords ?? []).some(found);
}

/**
 * The template to use among `templates`: those matching `text` when it is given, then the
 * highest priority, the workspace's own before built-in ones, the newest. `onStep` is told which
 * template is being tried (its index in `templates`) and where in it.
 */
export function selectTemplate<T extends Template>(templates: T[], text?: string, onStep?: (template: number, step: number) => void): T | undefined {
  const candidates = text === undefined ? templates : templates.filter((t, i) => matchesTemplate(t, text, onStep && ((step) => onStep(i, step))));
  return [...candidates].sort(
    (a, b) =>
      b.priority - a.priority ||
      Number(a.built_in) - Number(b.built_in) ||
      b.created_at.localeCompare(a.created_at) ||
      b.id.localeCompare(a.id),
  )[0];
}

/** Template fields win by name; generic fields fill in the rest. */
export function mergeFields(templateFields: FoundField[], genericFields: FoundField[]): FoundField[] {
  const taken = new Set(templateFields.map((f) => f.field));
  return [...templateFields, ...genericFields.filter((f) => !taken.has(f.field))];
}

const outputName = (name: string) => (name === 'lines' ? 'line_items' : name);

interface Hit {
  typed: TypedValue;
  start: number;
  end: number;
  /** 1-based index of the pattern that matched. */
  pattern: number;
}

interface Context {
  t: TemplateRules;
  doc: DocumentText;
  text: TemplateText;
  dateOrder: DateOrder;
}

function valueContext(ctx: Context, field: TemplateField): ValueContext {
  const options = ctx.t.options ?? {};
  return { options, formats: [...(field.formats ?? []), ...(options.date_formats ?? [])], dateOrder: ctx.dateOrder };
}

function scaled(base: number, where: { confidence: number } | undefined): number {
  return Math.max(1, Math.round((base * (where?.confidence ?? 100)) / 100));
}

function placed(where: Location | undefined): Pick<FoundField, 'page' | 'bbox'> {
  return where ? { page: where.page, ...(where.bbox ? { bbox: where.bbox } : {}) } : {};
}

const onPage = (where: Location | undefined) => (where ? ` on page ${where.page}` : '');

function regexHits(ctx: Context, name: string, field: TemplateField): Hit[] {
  const vctx = valueContext(ctx, field);
  const hits: Hit[] = [];
  patternsOf(field.regex).forEach((source, i) => {
    for (const m of ctx.text.text.matchAll(cachedPattern(source, 'gd').regex)) {
      const named = m.groups?.value !== undefined;
      const raw = named ? m.groups!.value! : (m[1] ?? '');
      const at = (named ? m.indices?.groups?.value : m.indices?.[1]) ?? [m.index, m.index + m[0].length];
      const typed = coerce(raw, formOf(outputName(name), field.type), vctx);
      if (typed) hits.push({ typed, start: at[0], end: at[1], pattern: i + 1 });
    }
  });
  return hits;
}

const compare = (a: Hit, b: Hit) => (a.typed.key < b.typed.key ? -1 : a.typed.key > b.typed.key ? 1 : 0);

/** The value of a field from its matches, by the field's `group` (default: the first match). */
function grouped(field: TemplateField, hits: Hit[]): { text: string; hit: Hit; how: string } {
  switch (field.group) {
    case 'last':
      return { text: hits.at(-1)!.typed.text, hit: hits.at(-1)!, how: `last of ${hits.length} matches` };
    case 'min':
    case 'max': {
      const sorted = [...hits].sort(compare);
      const hit = field.group === 'min' ? sorted[0]! : sorted.at(-1)!;
      return { text: hit.typed.text, hit, how: `${field.group} of ${hits.length} matches` };
    }
    case 'sum': {
      const total = hits.reduce((sum, h) => sum + (typeof h.typed.key === 'number' ? h.typed.key : Number(h.typed.key) || 0), 0);
      const text = field.type === 'integer' ? String(total) : formatAmount(total);
      return { text, hit: hits[0]!, how: `sum of ${hits.length} matches` };
    }
    case 'join':
      return { text: hits.map((h) => h.typed.text).join(' '), hit: hits[0]!, how: `${hits.length} matches joined` };
    default:
      return { text: hits[0]!.typed.text, hit: hits[0]!, how: '' };
  }
}

function tableHits(ctx: Context, name: string, field: TemplateField): Hit[] {
  const vctx = valueContext(ctx, field);
  return tableColumn(field, ctx.text.text).flatMap((cell) => {
    const typed = coerce(cell.value, formOf(outputName(name), field.type), vctx);
    return typed ? [{ typed, start: cell.start, end: cell.end, pattern: 1 }] : [];
  });
}

/** One value from a rule's matches, by the field's `group`; `source` says which rule found it. */
function fromHits(ctx: Context, name: string, field: TemplateField, hits: Hit[], source: (hit: Hit) => string): FoundField[] {
  if (hits.length === 0) return [];
  const { text, hit, how } = grouped(field, hits);
  const where = locate(ctx.text, hit.start, hit.end);
  const detail = [source(hit), how].filter(Boolean).join(', ');
  return [
    {
      field: outputName(name),
      value: text,
      confidence: scaled(CONFIDENCE.regex, where),
      explanation: `template '${ctx.t.name}' rule '${name}' (${detail})${onPage(where)}`,
      ...placed(where),
    },
  ];
}

function tableField(ctx: Context, name: string, field: TemplateField): FoundField[] {
  return fromHits(ctx, name, field, tableHits(ctx, name, field), () => `table column '${field.column}'`);
}

function regexField(ctx: Context, name: string, field: TemplateField): FoundField[] {
  const count = patternsOf(field.regex).length;
  return fromHits(ctx, name, field, regexHits(ctx, name, field), (hit) => `regex ${hit.pattern} of ${count}`);
}

function staticField(ctx: Context, name: string, field: TemplateField): FoundField[] {
  const typed = coerce(field.value ?? '', formOf(outputName(name), field.type), valueContext(ctx, field));
  if (!typed) return [];
  return [{ field: outputName(name), value: typed.text, confidence: CONFIDENCE.static, explanation: `template '${ctx.t.name}' rule '${name}' (static value)` }];
}

function labelField(ctx: Context, name: string, field: TemplateField): FoundField[] {
  const direction = field.direction ?? 'right';
  const hit = findByLabel(ctx.doc, field.label!, direction);
  if (!hit) return [];
  const typed = coerce(hit.words.map((w) => w.text).join(' '), formOf(outputName(name), field.type), valueContext(ctx, field));
  if (!typed) return [];
  const confidence = hit.words.reduce((sum, w: Word) => sum + w.confidence, 0) / hit.words.length;
  return [
    {
      field: outputName(name),
      value: typed.text,
      confidence: scaled(CONFIDENCE.label, { confidence }),
      explanation: `template '${ctx.t.name}' rule '${name}' (label '${field.label}', value ${direction === 'right' ? 'to the right' : 'below'}) on page ${hit.page}`,
      page: hit.page,
      bbox: union(hit.words.map((w) => w.bbox)),
    },
  ];
}

function linesField(ctx: Context, name: string, field: TemplateField): FoundField[] {
  const vctx = valueContext(ctx, field);
  const out: FoundField[] = [];
  const unece = UNECE_TABLES.has(outputName(name));
  parseLines(field, ctx.text.text).forEach((row, n) => {
    for (const [group, cell] of unece ? withUneceCode(row.cells) : row.cells) {
      const typed = coerce(cell.value, row.types[group], vctx);
      if (!typed) continue;
      const where = locate(ctx.text, cell.start, cell.end);
      out.push({
        field: `${outputName(name)}.${n}.${group}`,
        value: typed.text,
        confidence: scaled(CONFIDENCE.lines, where),
        explanation: `template '${ctx.t.name}' rule '${name}' (row ${n + 1}, block ${row.block + 1})${onPage(where)}`,
        ...placed(where),
      });
    }
  });
  return out;
}

const PARSERS = { regex: regexField, static: staticField, label: labelField, lines: linesField, table: tableField } as const;

/**
 * invoice2data's date reading falls back to dateparser, which reads numeric dates month first
 * in English, the language it settles on when a template names none.
 */
function dateOrder(options: TemplateOptions, text: string): DateOrder {
  return (options.languages?.[0] ?? 'en') === 'en' ? 'month-first' : dateOrderOf(text);
}

/** Runs every rule of the template on the document; fields a rule does not find are left out. */
export function applyTemplate(t: TemplateRules, doc: DocumentText, onStep?: OnStep): FoundField[] {
  const options = t.options ?? {};
  onStep?.(STEP_REPLACE);
  const text = templateText(doc, options);
  const ctx: Context = { t, doc, text, dateOrder: dateOrder(options, text.text) };
  const fields: FoundField[] = [];
  const missing: string[] = [];
  for (const [index, [name, field]] of Object.entries(t.fields).entries()) {
    onStep?.(index);
    const found = PARSERS[field.parser](ctx, name, field);
    if (found.length === 0 && field.required !== false) missing.push(name);
    fields.push(...found);
  }
  if (options.currency && !fields.some((f) => f.field === 'currency') && !currencyOf(text.text)) {
    fields.push({ field: 'currency', value: options.currency, confidence: CONFIDENCE.currency, explanation: `template '${t.name}' default currency (the document names none)` });
  }
  if (missing.length === 0) return fields;
  const note = `; template incomplete, not found: ${missing.join(', ')}`;
  return fields.map((f) => ({ ...f, explanation: f.explanation + note }));
}
