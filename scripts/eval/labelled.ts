import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ContentType, DocumentText } from '../../src/extraction/types.js';
import { fieldsGoal, type Context, type Outcome } from './corpus.js';
import { fieldsOf, mapLimit } from './read.js';
import { emptyRows, judgeDocument, printFieldTable, type Flat } from './score.js';

/** A document of a corpus with a `truth.json` (sroie-dev, einvoice-dev). */
export interface LabelledDocument {
  name: string;
  file: string;
  fields: Flat;
  /** sroie-dev: the human transcript of the text lines. */
  transcript?: string;
}

interface Truth {
  docs: Record<string, { file: string; fields: Record<string, string>; transcript?: string }>;
}

export function loadTruth(dir: string): LabelledDocument[] {
  const truth = JSON.parse(readFileSync(path.join(dir, 'truth.json'), 'utf8')) as Truth;
  return Object.entries(truth.docs)
    .map(([name, doc]) => ({
      name,
      file: path.join(dir, doc.file),
      fields: new Map(Object.entries(doc.fields).map(([field, value]) => [field, String(value)])),
      transcript: doc.transcript && path.join(dir, doc.transcript),
    }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
}

/**
 * Every document of a truth.json corpus through the pipeline and generic extraction, the fields
 * right per field printed, against the share of fields right the issue asks for.
 */
export async function scoreLabelled(
  ctx: Context,
  run: string,
  docs: LabelledDocument[],
  contentType: ContentType,
  target: number,
): Promise<Outcome & { documents: DocumentText[] }> {
  const documents = await mapLimit(docs, ctx.reader.concurrency, (doc) => ctx.reader.read(doc.name, readFileSync(doc.file), contentType));
  const rows = emptyRows();
  const judged = docs.flatMap((doc, i) => judgeDocument(run, true, doc.name, doc.fields, fieldsOf(documents[i]!), rows));
  console.log(`\n### ${run}: ${docs.length} documents, generic extraction (target: ${(100 * target).toFixed(0)}% of fields right)\n`);
  const tally = printFieldTable(judged);
  return { judged, goals: [fieldsGoal(run, tally, target)], documents };
}
