/**
 * Scores extraction on every corpus of ../shared/eval (relative to the repository; a missing
 * corpus is skipped with a message) and on the test suite's synthetic invoices, by the rules of
 * ../shared/eval/README.md, against the targets of issue 16:
 *
 *   invoice2data   generic vs templates, text and scanned paths, line-item rows
 *   sroie-dev      real receipts through OCR, and OCR word recall against the transcripts
 *   einvoice-dev   German e-invoices, text layer
 *   generated      test/fixtures/documents.ts invoices as text PDF and as a scan, line-item rows
 *
 * Each corpus prints its tables as it goes; then every wrong field (sorted, one a line, to diff
 * between runs), and last the summary against the targets with the calibration table.
 *
 *   npm run eval [-- --corpus NAME] [-- --text-only] [-- --no-cache]
 *
 * OCR'd documents are cached in .eval-cache/ (see eval/cache.ts): a change to field extraction
 * re-runs in seconds; a change to OCR or layout code reads everything again.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import { openOcrCache } from './eval/cache.js';
import type { Context, Corpus, Goal } from './eval/corpus.js';
import { einvoice } from './eval/einvoice.js';
import { generated } from './eval/generated.js';
import { invoice2data } from './eval/invoice2data.js';
import { createReader } from './eval/read.js';
import { CONFIDENT, CONFIDENT_TARGET, printCalibration, printWrong, type Judged } from './eval/score.js';
import { sroie } from './eval/sroie.js';

const CORPORA: Corpus[] = [invoice2data, sroie, einvoice, generated];

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const only = option('--corpus');
if (only !== undefined && !CORPORA.some((c) => c.name === only)) {
  console.error(`--corpus: one of ${CORPORA.map((c) => c.name).join(', ')}`);
  process.exit(2);
}
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const root = path.resolve(repo, '../shared/eval');
const started = performance.now();
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const cache = openOcrCache(repo, !args.includes('--no-cache'));
const ctx: Context = { root, reader: createReader(cache), textOnly: args.includes('--text-only') };
console.log(`# docex evaluation on ${root}`);

const judged: Judged[] = [];
const goals: Goal[] = [];
try {
  for (const corpus of CORPORA.filter((c) => only === undefined || c.name === only)) {
    if (corpus.folder && !existsSync(path.join(root, corpus.folder))) {
      console.log(`\n## ${corpus.name}: SKIPPED, ${path.join(root, corpus.folder)} is missing`);
      continue;
    }
    const since = performance.now();
    const outcome = await corpus.run(ctx);
    console.log(`\n(${corpus.name}: ${seconds(since)})`);
    judged.push(...outcome.judged);
    goals.push(...outcome.goals);
  }
} finally {
  await ctx.reader.close();
}

console.log(`\n## Wrong fields (generic extraction, and invoice2data with templates)\n`);
printWrong(judged);

console.log('\n## Summary against the targets (generic extraction)\n');
const width = Math.max(...goals.map((g) => g.run.length), 10);
for (const g of goals) {
  const verdict = g.met === undefined ? '' : g.met ? 'met' : 'NOT MET';
  console.log(`${g.run.padEnd(width)}  ${g.measure.padEnd(20)} ${g.value.padEnd(22)} ${(g.target ?? '').padEnd(10)} ${verdict}`);
}
console.log('\nCalibration: found values of generic extraction, all corpora together, by confidence\n');
const confident = printCalibration(judged);
const share = confident.total ? confident.right / confident.total : 0;
console.log(
  `\nright at confidence >= ${CONFIDENT}: ${confident.right}/${confident.total} (${(100 * share).toFixed(1)}%), target ${100 * CONFIDENT_TARGET}%: ${share >= CONFIDENT_TARGET ? 'met' : 'NOT MET'}`,
);
console.log(`\n${cache.describe()}`);
console.log(`total time ${seconds(started)}`);
