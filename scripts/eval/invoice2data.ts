import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { components } from '../../generated/openapi.js';
import type { DocumentText } from '../../src/extraction/types.js';
import { applyTemplate, mergeFields, selectTemplate } from '../../src/templates/engine.js';
import { INVOICE2DATA_FIELD_NAMES } from '../../src/templates/field-names.js';
import { convertInvoice2data, parseInvoice2data } from '../../src/templates/invoice2data.js';
import { templateText } from '../../src/templates/text.js';
import { f1Goal, type Context, type Corpus, type Goal } from './corpus.js';
import { fieldsOf, hasPdftoppm, mapLimit } from './read.js';
import { describeRows, emptyRows, f1, flattenExpected, groupBy, isLineItem, judgeDocument, rowsF1, type Flat, type Judged, type RowTally } from './score.js';
import { documentFromText } from './text-document.js';

type Template = components['schemas']['Template'];

/** The targets for generic extraction: no worse than before on these fields, vendor_name up to 0.90. */
const TARGETS: Record<string, number> = { invoice_number: 0.87, invoice_date: 1, total_amount: 1, currency: 1, vendor_name: 0.9 };
const ROWS_TARGET = 0.7;
/** The fields invoice2data and docex both name: what generic extraction is judged on (line items as rows). */
const DOCEX_FIELDS = new Set(Object.values(INVOICE2DATA_FIELD_NAMES));

interface Case {
  name: string;
  expected: Flat;
  /** A text input's contents, or the PDF. */
  text?: string;
  pdf?: Buffer;
}

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name), ext) : ext.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

function loadTemplates(corpus: string): Template[] {
  const dirs = [path.join(corpus, 'templates'), path.join(corpus, 'custom/templates')];
  return dirs.flatMap((dir) => filesUnder(dir, /\.(ya?ml|json)$/)).flatMap((file, i) => {
    const { template } = convertInvoice2data(parseInvoice2data(readFileSync(file, 'utf8')), path.basename(file));
    if (!template) return [];
    const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    return [{ ...template, id: `tpl_builtin_eval_${i}`, object: 'template' as const, description: '', exclude_keywords: template.exclude_keywords ?? [], priority: template.priority ?? 5, options: template.options ?? {}, built_in: true, workspace_id: null, created_at: stamp, updated_at: stamp }];
  });
}

function loadCases(corpus: string): { cases: Case[]; skipped: number } {
  const cases: Case[] = [];
  let skipped = 0;
  for (const dir of ['compare', 'custom']) {
    for (const json of filesUnder(path.join(corpus, dir), /\.json$/).filter((f) => path.dirname(f) === path.join(corpus, dir)).sort()) {
      const base = json.slice(0, -'.json'.length);
      const flat = flattenExpected((JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>[])[0]!);
      skipped += flat.skipped;
      const name = `${dir}/${path.basename(base)}`;
      if (existsSync(`${base}.pdf`)) cases.push({ name, expected: flat.fields, pdf: readFileSync(`${base}.pdf`) });
      else if (existsSync(`${base}.txt`)) cases.push({ name, expected: flat.fields, text: readFileSync(`${base}.txt`, 'utf8') });
    }
  }
  return { cases, skipped };
}

interface Run {
  judged: Judged[];
  rows: RowTally;
  templates: (string | undefined)[];
}

const fixed = (n: number) => n.toFixed(2).padStart(5);
const groupOf = (field: string) => field.replace(/\.\d+\./, '.*.');
const expectedOnly = (judged: Judged[]) => judged.filter((j) => j.expected !== undefined);

function report(title: string, generic: Run, templated: Run, cases: Case[]): void {
  console.log(`\n### ${title}\n`);
  console.log('field                          generic P     R    F1 | templates P     R    F1');
  const byField = (run: Run) => new Map(groupBy(run.judged.filter((j) => !isLineItem(j.field)), (j) => groupOf(j.field)));
  const [g, t] = [byField(generic), byField(templated)];
  const names = [...new Set([...g.keys(), ...t.keys()])].sort((a, b) => Number(!(a in TARGETS)) - Number(!(b in TARGETS)) || a.localeCompare(b));
  for (const name of names) {
    const a = f1(g.get(name) ?? []);
    const b = f1(t.get(name) ?? []);
    console.log(`${name.padEnd(30)} ${fixed(a.p)} ${fixed(a.r)} ${fixed(a.f)} |      ${fixed(b.p)} ${fixed(b.r)} ${fixed(b.f)}`);
  }
  console.log(`\nline-item rows, generic:   ${describeRows(generic.rows)}`);
  console.log(`line-item rows, templates: ${describeRows(templated.rows)}`);
  console.log('\ndocument                        generic equal | templates equal  template');
  const perDocument = (run: Run) => new Map(groupBy(expectedOnly(run.judged), (j) => j.document));
  const [gd, td] = [perDocument(generic), perDocument(templated)];
  const equal = (judged: Judged[] = []) => `${judged.filter((j) => j.right).length}/${judged.length}${judged.every((j) => j.right) ? ' =' : '  '}`;
  cases.forEach((c, i) => {
    console.log(`${c.name.padEnd(32)} ${equal(gd.get(c.name)).padStart(9)} | ${equal(td.get(c.name)).padStart(11)}      ${templated.templates[i] ?? '(none matched)'}`);
  });
  const total = (run: Run) => {
    const judged = expectedOnly(run.judged);
    const right = judged.filter((j) => j.right).length;
    return `${right}/${judged.length} (${((100 * right) / judged.length).toFixed(0)}%)`;
  };
  console.log(`\nexpected fields equal: generic ${total(generic)}, templates ${total(templated)}`);
}

async function evaluate(ctx: Context, title: string, way: 'text' | 'scan', cases: Case[], templates: Template[], read: (c: Case) => Promise<DocumentText>): Promise<{ judged: Judged[]; goals: Goal[] }> {
  const generic: Run = { judged: [], rows: emptyRows(), templates: [] };
  const templated: Run = { judged: [], rows: emptyRows(), templates: [] };
  const docs = await mapLimit(cases, ctx.reader.concurrency, read);
  for (const [i, c] of cases.entries()) {
    const doc = docs[i]!;
    const genericFields = fieldsOf(doc);
    const template = selectTemplate(templates, templateText(doc).text);
    const withTemplate = template ? mergeFields(applyTemplate(template, doc), genericFields) : genericFields;
    generic.judged.push(...judgeDocument(`invoice2data ${way}, generic`, true, c.name, c.expected, genericFields, generic.rows));
    templated.judged.push(...judgeDocument(`invoice2data ${way}, templates`, false, c.name, c.expected, withTemplate, templated.rows));
    templated.templates.push(template?.name);
  }
  report(title, generic, templated, cases);
  const run = `invoice2data ${way}`;
  const goals = Object.entries(TARGETS).map(([field, target]) => f1Goal(run, `${field} F1`, f1(generic.judged.filter((j) => j.field === field)).f, target));
  goals.push(f1Goal(run, 'line-item rows F1', rowsF1(generic.rows), ROWS_TARGET));
  const docexFields = generic.judged.filter((j) => DOCEX_FIELDS.has(j.field) || isLineItem(j.field));
  return { judged: [...docexFields, ...templated.judged], goals };
}

/**
 * invoice2data's test invoices: generic extraction against the converted invoice2data templates
 * (matched by keywords), first the text path (PDF text layers, .txt inputs), then the scanned
 * path (each PDF page rendered at 200 dpi and read by OCR). The targets are on generic
 * extraction; the templates show what the corpus allows.
 */
export const invoice2data: Corpus = {
  name: 'invoice2data',
  folder: 'invoice2data',
  async run(ctx: Context) {
    const corpus = path.join(ctx.root, 'invoice2data');
    const templates = loadTemplates(corpus);
    const { cases, skipped } = loadCases(corpus);
    console.log(`\n## invoice2data: ${cases.length} documents, ${templates.length} templates converted and available for matching`);
    console.log(`(precision counts wrong values of expected fields; fields invoice2data does not report are not scored; ${skipped} list-of-values fields have no docex form and are not scored;`);
    console.log(' line items are rows of description, quantity, unit price and amount, as many of them as the truth has; summary, listing and calibration take the generic run\'s fields docex names)');
    const text = await evaluate(ctx, 'Text path (PDF text layer, .txt inputs)', 'text', cases, templates, (c) => (c.pdf ? ctx.reader.read(c.name, c.pdf, 'application/pdf') : Promise.resolve(documentFromText(c.text!))));
    if (ctx.textOnly) {
      console.log('\nScanned path skipped (--text-only).');
      return text;
    }
    if (!hasPdftoppm()) {
      console.log('\nScanned path SKIPPED: pdftoppm (poppler-utils) is not installed; install it to evaluate OCR.');
      return text;
    }
    const scans = cases.filter((c) => c.pdf);
    const scan = await evaluate(ctx, 'Scanned path (PDF pages as 200 dpi PNG, OCR)', 'scan', scans, templates, (c) => ctx.reader.readScan(c.name, c.pdf!));
    return { judged: [...text.judged, ...scan.judged], goals: [...text.goals, ...scan.goals] };
  },
};
