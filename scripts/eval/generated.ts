import type { ContentType } from '../../src/extraction/types.js';
import { EU_EXPECTED, EU_INVOICE, US_EXPECTED, US_INVOICE, invoicePdf, renderPage, type Invoice } from '../../test/fixtures/documents.js';
import { f1Goal, fieldsGoal, type Context, type Corpus, type Goal } from './corpus.js';
import { fieldsOf } from './read.js';
import { describeRows, emptyRows, judgeDocument, printFieldTable, rowsF1, type Flat, type Judged } from './score.js';

/** The test suite's synthetic invoices, with the values they were drawn from. */
const INVOICES: { name: string; invoice: Invoice; expected: Record<string, string>; decimalComma: boolean }[] = [
  { name: 'EU_INVOICE', invoice: EU_INVOICE, expected: EU_EXPECTED, decimalComma: true },
  { name: 'US_INVOICE', invoice: US_INVOICE, expected: US_EXPECTED, decimalComma: false },
];

/** A printed amount ('1.000,00', '$1,000.00') as a decimal string. */
const decimal = (printed: string, decimalComma: boolean) => {
  const digits = printed.replace(/[^\d.,-]/g, '');
  return decimalComma ? digits.replace(/\./g, '').replace(',', '.') : digits.replace(/,/g, '');
};

function expectedOf({ invoice, expected, decimalComma }: (typeof INVOICES)[number]): Flat {
  const fields: Flat = new Map(Object.entries(expected));
  invoice.items.forEach(([description, quantity, unitPrice, amount], n) => {
    fields.set(`line_items.${n}.description`, description);
    fields.set(`line_items.${n}.quantity`, decimal(quantity, decimalComma));
    fields.set(`line_items.${n}.unit_price`, decimal(unitPrice, decimalComma));
    fields.set(`line_items.${n}.amount`, decimal(amount, decimalComma));
  });
  return fields;
}

const SCAN_DPI = 200;

async function scoreRun(ctx: Context, run: string, input: (pdf: Buffer) => Promise<{ bytes: Buffer; contentType: ContentType }>): Promise<{ judged: Judged[]; goals: Goal[] }> {
  const rows = emptyRows();
  const judged: Judged[] = [];
  for (const c of INVOICES) {
    const { bytes, contentType } = await input(await invoicePdf(c.invoice));
    const document = await ctx.reader.read(c.name, bytes, contentType);
    judged.push(...judgeDocument(run, true, c.name, expectedOf(c), fieldsOf(document), rows));
  }
  console.log(`\n### ${run}: ${INVOICES.length} invoices, generic extraction (target: line-item rows F1 >= 0.85)\n`);
  const tally = printFieldTable(judged);
  console.log(`line-item rows (description, quantity, unit price and amount all right): ${describeRows(rows)}`);
  return { judged, goals: [fieldsGoal(run, tally), f1Goal(run, 'line-item rows F1', rowsF1(rows), 0.85)] };
}

/** The synthetic invoices of test/fixtures/documents.ts, as text PDFs and as scans (a page rendered at 200 dpi, read by OCR). */
export const generated: Corpus = {
  name: 'generated',
  async run(ctx) {
    console.log('\n## generated: the synthetic invoices of test/fixtures/documents.ts');
    const text = await scoreRun(ctx, 'generated text', async (pdf) => ({ bytes: pdf, contentType: 'application/pdf' }));
    if (ctx.textOnly) {
      console.log('\nScanned path skipped (--text-only).');
      return text;
    }
    const scan = await scoreRun(ctx, 'generated scan', async (pdf) => ({ bytes: await renderPage(pdf, SCAN_DPI), contentType: 'image/png' }));
    return { judged: [...text.judged, ...scan.judged], goals: [...text.goals, ...scan.goals] };
  },
};
