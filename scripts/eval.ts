/**
 * Evaluates extraction on the invoice2data corpus (shared/eval/invoice2data): every document
 * through the real pipeline, once with generic extraction only and once with the converted
 * invoice2data templates (auto-matched by keywords), against invoice2data's expected output.
 * First the text path (PDF text layers, .txt inputs), then the scanned path (each PDF page
 * rendered to a 200 dpi PNG with pdftoppm and read by OCR).
 *
 *   npm run eval [-- --corpus DIR] [-- --text-only] [-- --diff]
 *
 * --diff prints, for every document, each expected field the templates run got wrong: expected
 * value against the one found.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { extractFields } from '../src/extraction/fields.js';
import { createPipeline, type Pipeline } from '../src/extraction/pipeline.js';
import type { DocumentText, FoundField } from '../src/extraction/types.js';
import { applyTemplate, mergeFields, selectTemplate } from '../src/templates/engine.js';
import { convertInvoice2data, parseInvoice2data } from '../src/templates/invoice2data.js';
import { templateText } from '../src/templates/text.js';
import type { components } from '../generated/openapi.js';
import { f1, flattenExpected, normalised, score, type Flat, type Tally } from './eval/score.js';
import { documentFromText } from './eval/text-document.js';

type Template = components['schemas']['Template'];

const args = process.argv.slice(2);
const corpusAt = args.indexOf('--corpus');
const here = path.dirname(new URL(import.meta.url).pathname);
const corpus = corpusAt >= 0 ? args[corpusAt + 1]! : path.resolve(here, '../../shared/eval/invoice2data');
const textOnly = args.includes('--text-only');
const showDiff = args.includes('--diff');
const GENERIC_TARGETS = ['invoice_number', 'invoice_date', 'total_amount', 'currency', 'vendor_name'];

interface Case {
  name: string;
  expected: Record<string, unknown>;
  /** The document through the text path. */
  read(pipeline: Pipeline): Promise<DocumentText>;
  pdf?: string;
}

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name), ext) : ext.test(e.name) ? [path.join(dir, e.name)] : [],
  );
}

function loadTemplates(): Template[] {
  const dirs = [path.join(corpus, 'templates'), path.join(corpus, 'custom/templates')];
  return dirs.flatMap((dir) => filesUnder(dir, /\.(ya?ml|json)$/)).flatMap((file, i) => {
    const { template } = convertInvoice2data(parseInvoice2data(readFileSync(file, 'utf8')), path.basename(file));
    if (!template) return [];
    const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    return [{ ...template, id: `tpl_builtin_eval_${i}`, object: 'template' as const, description: '', exclude_keywords: template.exclude_keywords ?? [], priority: template.priority ?? 5, options: template.options ?? {}, built_in: true, workspace_id: null, created_at: stamp, updated_at: stamp }];
  });
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const dir of ['compare', 'custom']) {
    for (const json of filesUnder(path.join(corpus, dir), /\.json$/).filter((f) => path.dirname(f) === path.join(corpus, dir))) {
      const base = json.slice(0, -'.json'.length);
      const expected = (JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>[])[0]!;
      const name = `${dir}/${path.basename(base)}`;
      if (existsSync(`${base}.pdf`)) {
        const pdf = `${base}.pdf`;
        out.push({ name, expected, pdf, read: async (p) => (await p.extract({ bytes: readFileSync(pdf), contentType: 'application/pdf' })).document });
      } else if (existsSync(`${base}.txt`)) {
        out.push({ name, expected, read: async () => documentFromText(readFileSync(`${base}.txt`, 'utf8')) });
      }
    }
  }
  return out;
}

/** The scanned path: each page as a 200 dpi PNG through OCR, the pages put back together. */
async function scanned(pipeline: Pipeline, pdf: string): Promise<DocumentText> {
  const dir = mkdtempSync(path.join(tmpdir(), 'docex-eval-'));
  try {
    execFileSync('pdftoppm', ['-r', '200', '-png', pdf, path.join(dir, 'page')]);
    const pngs = readdirSync(dir).filter((f) => f.endsWith('.png')).sort();
    const pages = [];
    for (const [i, png] of pngs.entries()) {
      const result = await pipeline.extract({ bytes: readFileSync(path.join(dir, png)), contentType: 'image/png' });
      pages.push(...result.document.pages.map((p) => ({ ...p, number: i + 1 })));
    }
    return { pages };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const flat = (fields: FoundField[]): Flat => new Map(fields.map((f) => [f.field, f.value]));

interface Run {
  tallies: Map<string, Tally>;
  docs: { name: string; equal: number; total: number; template?: string }[];
}

function report(title: string, generic: Run, templated: Run, skipped: number): void {
  const pct = (n: number) => `${(100 * n).toFixed(0).padStart(3)}%`;
  console.log(`\n## ${title}\n`);
  console.log('field                          generic P    R   F1 | templates P    R   F1');
  const names = [...new Set([...generic.tallies.keys(), ...templated.tallies.keys()])].sort((a, b) => Number(!GENERIC_TARGETS.includes(a)) - Number(!GENERIC_TARGETS.includes(b)) || a.localeCompare(b));
  for (const name of names) {
    const g = f1(generic.tallies.get(name) ?? { tp: 0, fp: 0, fn: 0 });
    const t = f1(templated.tallies.get(name) ?? { tp: 0, fp: 0, fn: 0 });
    console.log(`${name.padEnd(30)} ${pct(g.p)} ${pct(g.r)} ${pct(g.f)} |      ${pct(t.p)} ${pct(t.r)} ${pct(t.f)}`);
  }
  console.log('\ndocument                        generic equal | templates equal  template');
  let ge = 0;
  let te = 0;
  let total = 0;
  generic.docs.forEach((g, i) => {
    const t = templated.docs[i]!;
    ge += g.equal;
    te += t.equal;
    total += g.total;
    console.log(`${g.name.padEnd(32)} ${`${g.equal}/${g.total}`.padStart(7)}${g.equal === g.total ? ' =' : '  '} | ${`${t.equal}/${t.total}`.padStart(9)}${t.equal === t.total ? ' =' : '  '}      ${t.template ?? '(none matched)'}`);
  });
  const exact = (r: Run) => r.docs.filter((d) => d.equal === d.total).length;
  console.log(`\nexpected fields equal: generic ${ge}/${total} (${pct(ge / total)}), templates ${te}/${total} (${pct(te / total)})`);
  console.log(`documents with every field equal: generic ${exact(generic)}/${generic.docs.length}, templates ${exact(templated)}/${templated.docs.length}`);
  const target = GENERIC_TARGETS.map((n) => `${n} ${f1(generic.tallies.get(n) ?? { tp: 0, fp: 0, fn: 0 }).f.toFixed(2)}`).join(', ');
  console.log(`generic F1 on the target fields: ${target}`);
  console.log(`(precision counts wrong values of expected fields; fields invoice2data does not report are not scored; ${skipped} list-of-values fields have no docex form and are not scored)`);
}

/** The expected fields a run got wrong, expected value against the one found. */
function printDiff(name: string, expected: Flat, got: Flat): void {
  const wrong = [...expected].filter(([field, want]) => normalised(got.get(field) ?? '') !== normalised(want) || !got.has(field));
  if (wrong.length === 0) return;
  console.log(`\n${name}: ${wrong.length} differ`);
  for (const [field, want] of wrong) console.log(`  ${field}: expected ${JSON.stringify(want)}, got ${got.has(field) ? JSON.stringify(got.get(field)) : '(nothing)'}`);
}

async function evaluate(title: string, all: Case[], templates: Template[], read: (c: Case) => Promise<DocumentText>): Promise<void> {
  const generic: Run = { tallies: new Map(), docs: [] };
  const templated: Run = { tallies: new Map(), docs: [] };
  let skipped = 0;
  for (const c of all) {
    const { fields: expected, skipped: s } = flattenExpected(c.expected);
    skipped += s;
    let doc: DocumentText;
    try {
      doc = await read(c);
    } catch (err) {
      console.log(`${c.name}: not read (${(err as Error).message})`);
      doc = { pages: [] };
    }
    const genericFields = doc.pages.length ? extractFields(doc) : [];
    const template = selectTemplate(templates, templateText(doc).text);
    const withTemplate = template ? mergeFields(applyTemplate(template, doc), genericFields) : genericFields;
    generic.docs.push({ name: c.name, ...score(expected, flat(genericFields), generic.tallies) });
    templated.docs.push({ name: c.name, template: template?.name, ...score(expected, flat(withTemplate), templated.tallies) });
    if (showDiff) printDiff(c.name, expected, flat(withTemplate));
  }
  report(title, generic, templated, skipped);
}

const started = performance.now();
const templates = loadTemplates();
console.log(`# docex evaluation on ${corpus}\n${templates.length} invoice2data templates converted and available for matching`);
const pipeline = createPipeline(loadConfig());
try {
  const all = cases();
  await evaluate('Text path (PDF text layer, .txt inputs)', all, templates, (c) => c.read(pipeline));
  if (textOnly) {
    console.log('\nScanned path skipped (--text-only).');
  } else if (!existsSync('/usr/bin/pdftoppm') && !process.env.PATH?.split(':').some((d) => existsSync(path.join(d, 'pdftoppm')))) {
    console.log('\nScanned path SKIPPED: pdftoppm (poppler-utils) is not installed; install it to evaluate OCR.');
  } else {
    await evaluate('Scanned path (PDF pages as 200 dpi PNG, OCR)', all.filter((c) => c.pdf), templates, (c) => scanned(pipeline, c.pdf!));
  }
} finally {
  await pipeline.close();
}
console.log(`\n${((performance.now() - started) / 1000).toFixed(1)} s`);
