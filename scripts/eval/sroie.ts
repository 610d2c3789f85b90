import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DocumentText } from '../../src/extraction/types.js';
import type { Corpus } from './corpus.js';
import { loadTruth, scoreLabelled } from './labelled.js';

/** Tokens of two or more letters or digits, upper-cased, with how often each occurs. */
function tokens(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of text.toUpperCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (token.length >= 2) counts.set(token, (counts.get(token) ?? 0) + 1);
  }
  return counts;
}

/** The transcript's text: each line is `x1,y1,...,x4,y4,text`. */
const transcriptText = (file: string) =>
  readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .map((line) => line.split(',').slice(8).join(','))
    .join('\n');

const documentText = (doc: DocumentText) => doc.pages.flatMap((p) => p.lines.map((l) => l.text)).join('\n');

/** OCR word recall: the transcript's tokens found by OCR (each as often as both have it), over all receipts. */
function wordRecall(pairs: [transcript: string, ocr: DocumentText][]): { found: number; total: number } {
  let found = 0;
  let total = 0;
  for (const [transcript, ocr] of pairs) {
    const read = tokens(documentText(ocr));
    for (const [token, n] of tokens(transcriptText(transcript))) {
      total += n;
      found += Math.min(n, read.get(token) ?? 0);
    }
  }
  return { found, total };
}

/** Real scanned receipts (JPEG) through OCR: vendor, date, address and total, and OCR's word recall. */
export const sroie: Corpus = {
  name: 'sroie-dev',
  folder: 'sroie-dev',
  async run(ctx) {
    const run = 'sroie-dev';
    console.log(`\n## ${run}: real scanned receipts through OCR`);
    if (ctx.textOnly) {
      console.log('\nSkipped (--text-only): every receipt is a scan.');
      return { judged: [], goals: [] };
    }
    const docs = loadTruth(path.join(ctx.root, run));
    const outcome = await scoreLabelled(ctx, run, docs, 'image/jpeg', 0.9);
    const recall = wordRecall(docs.flatMap((doc, i) => (doc.transcript ? [[doc.transcript, outcome.documents[i]!] as [string, DocumentText]] : [])));
    const share = `${((100 * recall.found) / recall.total).toFixed(1)}%`;
    console.log(`\nOCR word recall against transcripts/: ${recall.found}/${recall.total} tokens (${share}); measured on 30 receipts: docex 76.6%, tesseract 5.3 75.2%, PaddleOCR 77.3%`);
    const goal = { run, measure: 'OCR word recall', value: `${share} of ${recall.total} tokens`, target: '(no target; 76.6% on 30 receipts)' };
    return { judged: outcome.judged, goals: [...outcome.goals, goal] };
  },
};
