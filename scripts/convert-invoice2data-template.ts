/**
 * Converts invoice2data templates (YAML or JSON) into docex templates (TemplateCreate JSON).
 *
 *   tsx scripts/convert-invoice2data-template.ts <file.yml|dir>... [--out dir]
 *
 * With --out each template is written to <dir>/<slug>.json; without it a single template is
 * printed. Either way a report lists what could not be converted and why.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { convertInvoice2data, parseInvoice2data } from '../src/templates/invoice2data.js';
import { templateSlug } from '../src/templates/builtin.js';

function filesUnder(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target)
    .sort()
    .flatMap((name) => filesUnder(path.join(target, name)))
    .filter((f) => /\.(ya?ml|json)$/i.test(f));
}

const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args[outAt + 1] : undefined;
const targets = args.filter((_, i) => i !== outAt && i !== outAt + 1);
if (targets.length === 0 || (outAt >= 0 && !out)) {
  console.error('usage: tsx scripts/convert-invoice2data-template.ts <file.yml|dir>... [--out dir]');
  process.exit(2);
}

const files = targets.flatMap(filesUnder);
if (out) mkdirSync(out, { recursive: true });
let converted = 0;
let partial = 0;
const failed: string[] = [];
for (const file of files) {
  let raw: unknown;
  try {
    raw = parseInvoice2data(readFileSync(file, 'utf8'));
  } catch (err) {
    failed.push(`${file}: unreadable YAML/JSON (${(err as Error).message.split('\n')[0]})`);
    continue;
  }
  const result = convertInvoice2data(raw, path.basename(file));
  if (!result.template) {
    failed.push(`${file}: ${result.error}`);
    continue;
  }
  converted += 1;
  if (result.dropped.length) {
    partial += 1;
    console.error(`${file}: converted without ${result.dropped.join('; ')}`);
  }
  const json = `${JSON.stringify(result.template, null, 2)}\n`;
  if (out) writeFileSync(path.join(out, `${templateSlug(path.basename(file))}.json`), json);
  else if (files.length === 1) process.stdout.write(json);
}
for (const line of failed) console.error(`NOT CONVERTED ${line}`);
console.error(`${files.length} templates: ${converted} converted (${partial} with parts left out), ${failed.length} not converted`);
process.exit(failed.length && converted === 0 ? 1 : 0);
