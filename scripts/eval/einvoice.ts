import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fieldsGoal, type Corpus, type Goal } from './corpus.js';
import { loadTruth, scoreLabelled } from './labelled.js';
import { fieldsOf, mapLimit } from './read.js';
import { emptyRows, judgeDocument, printFieldTable, type Judged } from './score.js';

/** Where an invoice line (BG-25) starts in an invoice XML: CII, ZUGFeRD 1.0 and UBL. */
const LINE_START = /<(?:[\w.-]+:)?(?:IncludedSupplyChainTradeLineItem|InvoiceLine|CreditNoteLine)[\s>]/;
/** A line that names an item (CII's product, UBL's item), not a note line of ZUGFeRD 1.0 EXTENDED. */
const ITEM = /<(?:[\w.-]+:)?(?:SpecifiedTradeProduct|Item)[\s>]/;

/** The item lines of an invoice XML, counted on the text with patterns: independent of the reader being measured. */
const xmlItemLines = (xml: string) => xml.split(LINE_START).slice(1).filter((block) => ITEM.test(block)).length;

const rowsOf = (fields: { field: string }[]) => new Set(fields.flatMap((f) => /^line_items\.(\d+)\./.exec(f.field)?.[1] ?? [])).size;

/**
 * German EN 16931 invoices, two paths: the text layer with the attached invoice XML ignored
 * (generic extraction on the pages), and the service's answer, which reads the attachment. The
 * attachment path must return every value of the truth exactly (the truth is taken from the XML)
 * and as many line items as the corpus's copy of the XML (`embedded-xml/`) has invoice lines: line
 * items on every invoice whose XML has lines.
 */
export const einvoice: Corpus = {
  name: 'einvoice-dev',
  folder: 'einvoice-dev',
  async run(ctx) {
    const dir = path.join(ctx.root, 'einvoice-dev');
    const docs = loadTruth(dir);
    console.log('\n## einvoice-dev: German e-invoices, text layer (attached XML ignored)');
    const { judged, goals, documents } = await scoreLabelled(ctx, 'einvoice-dev text', docs, 'application/pdf', 0.95);

    console.log('\n## einvoice-dev: German e-invoices, attached XML read');
    const answers = await mapLimit(docs, ctx.reader.concurrency, (doc) => ctx.reader.extract(doc.name, readFileSync(doc.file), 'application/pdf'));
    const run = 'einvoice-dev attachment';
    const attachment: Judged[] = [];
    let withLines = 0;
    // An XML without invoice lines (a BASIC WL booking aid) cannot give any: those count apart.
    let xmlWithLines = 0;
    let linesAsXml = 0;
    console.log('\ndocument                          syntax  profile     line items  XML lines  page-only items  XML values below 100');
    docs.forEach((doc, i) => {
      const { fields, eInvoice } = answers[i]!;
      attachment.push(...judgeDocument(run, false, doc.name, doc.fields, fields, emptyRows()));
      const copy = path.join(dir, 'embedded-xml', `${doc.name}.xml`);
      const xmlLines = existsSync(copy) ? xmlItemLines(readFileSync(copy, 'utf8')) : -1;
      const rows = rowsOf(fields);
      if (xmlLines !== 0) xmlWithLines += 1;
      if (rows > 0 && xmlLines !== 0) withLines += 1;
      if (rows === xmlLines) linesAsXml += 1;
      const unsure = fields.filter((f) => f.confidence < 100 && / XML, B[TG]-/.test(f.explanation)).map((f) => `${f.field} ${f.confidence}`);
      const status = eInvoice ? (eInvoice.status === 'read' ? eInvoice.syntax! : `ignored: ${eInvoice.message}`) : 'none';
      const pageRows = rowsOf(fieldsOf(documents[i]!));
      console.log(`${doc.name.padEnd(33)} ${status.padEnd(7)} ${(eInvoice?.profile ?? '-').padEnd(11)} ${String(rows).padStart(10)} ${String(xmlLines).padStart(10)} ${String(pageRows).padStart(16)}  ${unsure.join(', ') || '-'}`);
    });
    console.log(`\n### ${run}: ${docs.length} documents, the service's answer (target: 100% of fields right)\n`);
    const tally = printFieldTable(attachment);
    const lineGoals: Goal[] = [
      { run, measure: 'with line items', value: `${withLines}/${xmlWithLines}`, target: `${xmlWithLines}/${xmlWithLines}`, met: withLines === xmlWithLines },
      { run, measure: 'lines as in the XML', value: `${linesAsXml}/${docs.length}`, target: `${docs.length}/${docs.length}`, met: linesAsXml === docs.length },
    ];
    return { judged: [...judged, ...attachment], goals: [...goals, fieldsGoal(run, tally, 1), ...lineGoals] };
  },
};
