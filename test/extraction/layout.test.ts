import { describe, expect, it } from 'vitest';
import { extractFields } from '../../src/extraction/fields.js';
import { fieldsForLabel, isKnownLabel, isLabelPhrase, normaliseLabel } from '../../src/extraction/labels.js';
import { findPairs, wordsToLines } from '../../src/extraction/layout.js';
import { documentText } from '../../src/extraction/text.js';
import type { DocumentText, PageText, Word } from '../../src/extraction/types.js';

const CHAR = 0.008;
const HEIGHT = 0.012;

/** Words of `text` laid out from (x, y) as a proportional font would, one space a character wide. */
function run(text: string, x: number, y: number, confidence = 100, height = HEIGHT): Word[] {
  const words: Word[] = [];
  let cursor = x;
  for (const token of text.split(' ')) {
    words.push({ text: token, confidence, bbox: { x: cursor, y, width: token.length * CHAR, height } });
    cursor += (token.length + 1) * CHAR;
  }
  return words;
}

function page(number: number, ...runs: Word[][]): PageText {
  return { number, source: 'text_layer', lines: wordsToLines(runs.flat()) };
}

describe('wordsToLines', () => {
  it('groups words into rows by overlap, orders them by x and splits columns at wide gaps', () => {
    const words = [...run('Total:', 0.6, 0.5), ...run('Invoice No.:', 0.1, 0.2), ...run('1.469,06', 0.8, 0.502), ...run('INV-1', 0.3, 0.199)];
    const lines = wordsToLines(words.reverse());
    expect(lines.map((l) => [l.row, l.text])).toEqual([
      [0, 'Invoice No.:'],
      [0, 'INV-1'],
      [1, 'Total:'],
      [1, '1.469,06'],
    ]);
    expect(lines[0]!.bbox.x).toBeCloseTo(0.1);
    expect(lines[0]!.bbox.width).toBeCloseTo(12 * CHAR);
  });

  it('keeps normally spaced words on one line and slightly skewed OCR words on one row', () => {
    const skewed = run('Grand total due now', 0.1, 0.3).map((w, i) => ({ ...w, bbox: { ...w.bbox, y: w.bbox.y + i * 0.002 } }));
    const lines = wordsToLines(skewed);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.text).toBe('Grand total due now');
  });

  it('keeps each line OCR read whole, so that a tilted heading is not mixed into the line under it', () => {
    // A heading set large and rising to the right, over an address line that rises too (a curled receipt).
    const tilt = (words: Word[], ocrLine: number, per: number) => words.map((w, i) => ({ ...w, ocrLine, bbox: { ...w.bbox, y: w.bbox.y - i * per } }));
    const heading = tilt(run('MEI LET RESTAURANT', 0.1, 0.215, 90, 0.025), 1, 0.008);
    const address = tilt(run('NO 2, JALAN BULAN BM U5/BM', 0.05, 0.235), 2, 0.003);
    expect(wordsToLines([...heading, ...address], 2).map((l) => l.text)).toEqual(['MEI LET RESTAURANT', 'NO 2, JALAN BULAN BM U5/BM']);
    const unlined = [...heading, ...address].map(({ ocrLine, ...w }) => w);
    expect(wordsToLines(unlined, 2).map((l) => l.text)).not.toContain('MEI LET RESTAURANT');
  });
});

describe('documentText', () => {
  it('joins columns with tabs, rows with newlines and pages with form feeds', () => {
    const doc: DocumentText = { pages: [page(1, run('Invoice No.:', 0.1, 0.1), run('INV-1', 0.5, 0.1), run('Thanks', 0.1, 0.2)), page(2, run('Page two', 0.1, 0.1))] };
    expect(documentText(doc)).toBe('Invoice No.:\tINV-1\nThanks\fPage two');
  });
});

describe('labels', () => {
  it.each([
    ['Invoice No.', 'invoice no'],
    ['Invoice #', 'invoice no'],
    ['Rechnungs-Nr.', 'rechnungsnr'],
    ['Facture n°', 'facture no'],
    ['N° de facture', 'no de facture'],
    ['VAT 19%', 'vat'],
    ['Sales Tax (8.25%)', 'sales tax'],
    ['P.O. Number', 'po no'],
    ['USt-IdNr.', 'ustidnr'],
    ["Date d'échéance", 'date déchéance'],
    ['Total EUR', 'total'],
    ['Montant EUR TTC', 'montant ttc'],
    ['Currency', 'currency'],
  ])('normalises %s to %s', (label, normalised) => {
    expect(normaliseLabel(label)).toBe(normalised);
  });

  it('maps label synonyms in several languages to canonical fields', () => {
    const first = (label: string) => fieldsForLabel(label)[0]?.field;
    expect(first('Rechnungsnummer')).toBe('invoice_number');
    expect(first('Facture n°')).toBe('invoice_number');
    expect(first('Invoice Number')).toBe('invoice_number');
    expect(first('Rechnungsdatum')).toBe('invoice_date');
    expect(first('Fällig am')).toBe('due_date');
    expect(first('Amount due')).toBe('total_amount');
    expect(first('Grand Total')).toBe('total_amount');
    expect(first('Gesamtbetrag')).toBe('total_amount');
    expect(first('Zwischensumme')).toBe('subtotal');
    expect(first('MwSt. 19 %')).toBe('tax_amount');
    expect(first('TVA 20%')).toBe('tax_amount');
    expect(first('USt-IdNr.')).toBe('vendor_tax_id');
    expect(first('Tax ID')).toBe('vendor_tax_id');
    expect(first('PO #')).toBe('purchase_order');
    expect(first('E-Mail')).toBe('email');
    expect(first('Tel.')).toBe('phone');
    expect(fieldsForLabel('VAT').map((f) => f.field)).toEqual(['tax_amount', 'vendor_tax_id']);
    expect(isKnownLabel('Description')).toBe(false);
    expect(isKnownLabel('INVOICE')).toBe(false);
  });
});

describe('findPairs', () => {
  it('takes no label out of a longer one the lexicon does not know ("Merchant Number")', () => {
    const pairs = findPairs(page(1, run('Merchant Number 4711', 0.1, 0.1), run('Merchant Shell Kepong', 0.1, 0.2)), isLabelPhrase);
    expect(pairs.map((p) => [p.label, p.value])).toEqual([['Merchant', 'Shell Kepong']]);
  });

  it('pairs a value to the right on the same line, in the next column, or directly below', () => {
    const p = page(
      1,
      run('Invoice No.: INV-7', 0.1, 0.1),
      run('Order date:', 0.1, 0.13),
      run('2026-03-01', 0.4, 0.13),
      run('Ship to:', 0.1, 0.2),
      run('Initech Ltd', 0.1, 0.215),
      run('Total 1.469,06', 0.6, 0.5),
    );
    const pairs = findPairs(p, isKnownLabel).map((x) => [x.label, x.value, x.position]);
    expect(pairs).toEqual([
      ['Invoice No.', 'INV-7', 'right'],
      ['Order date', '2026-03-01', 'right'],
      ['Ship to', 'Initech Ltd', 'below'],
      ['Total', '1.469,06', 'right'],
    ]);
  });

  it('pairs a date under its heading past a line of another column, but no amount', () => {
    const terms = page(1, run('Beschreibung', 0.1, 0.3), run('Fälligkeit', 0.6, 0.3), run('Zahlungsbedingungen: Der Betrag wurde bereits', 0.1, 0.315), run('03.10.2018', 0.6, 0.327));
    expect(findPairs(terms, isKnownLabel).map((x) => [x.label, x.value, x.position])).toContainEqual(['Fälligkeit', '03.10.2018', 'below']);
    const table = page(1, run('Pos.', 0.1, 0.3), run('Ohne MwSt.', 0.6, 0.3), run('Small Business Exchange', 0.1, 0.315), run('3,89', 0.6, 0.327));
    expect(findPairs(table, isKnownLabel).filter((x) => x.label === 'Ohne MwSt.')).toEqual([]);
  });

  it('splits several labelled values on one line and does not take a label as a value', () => {
    const p = page(1, run('Invoice No: 42 Invoice Date: 15.03.2026', 0.1, 0.1), run('Due date:', 0.1, 0.2), run('Terms:', 0.4, 0.2));
    expect(findPairs(p, isKnownLabel).map((x) => [x.label, x.value])).toEqual([
      ['Invoice No', '42'],
      ['Invoice Date', '15.03.2026'],
    ]);
  });

  it('ignores times and long sentences with colons', () => {
    const p = page(1, run('Opening hours 9: 00', 0.1, 0.1), run('We kindly ask you to pay the amount below within: 30 days', 0.1, 0.2));
    expect(findPairs(p, isKnownLabel)).toEqual([]);
  });
});

const field = (doc: DocumentText, name: string) => extractFields(doc).find((f) => f.field === name);

describe('extractFields', () => {
  it('prefers a value beside its label to a column header above a table, and the largest total', () => {
    const doc = {
      pages: [
        page(
          1,
          run('Description', 0.1, 0.3),
          run('Total', 0.7, 0.3),
          run('Widget', 0.1, 0.315),
          run('100.00', 0.7, 0.315),
          run('Total: 1,100.00', 0.6, 0.6),
          run('Balance due: 0.00', 0.6, 0.62),
        ),
      ],
    };
    expect(field(doc, 'total_amount')).toMatchObject({ value: '1100.00', explanation: "label 'Total' on page 1, value to the right" });
  });

  it.each([
    ['Total EUR', '34,73', '34.73'],
    ['Somme à payer', '29.99 € TTC', '29.99'],
    ['Należność ogółem:', '316,83 PLN', '316.83'],
    ['Total for this invoice', '$4.11', '4.11'],
  ])('reads the total beside %s', (label, amount, value) => {
    const doc = { pages: [page(1, run(label, 0.1, 0.5), run(amount, 0.7, 0.5))] };
    expect(field(doc, 'total_amount')?.value).toBe(value);
  });

  it('says when a slashed date was ambiguous and lowers its confidence', () => {
    const doc = { pages: [page(1, run('Invoice date: 04/05/2026', 0.1, 0.1), run('Total: 10,00 €', 0.1, 0.2))] };
    const date = field(doc, 'invoice_date')!;
    expect(date.value).toBe('2026-05-04');
    expect(date.explanation).toMatch(/^label 'Invoice date' on page 1, value to the right \(day and month could be swapped; read day-first\)/);
    const plain = field({ pages: [page(1, run('Invoice date: 24/05/2026', 0.1, 0.1), run('Total: 10,00 €', 0.1, 0.2))] }, 'invoice_date')!;
    expect(date.confidence).toBeLessThan(plain.confidence - 10);
    const us = { pages: [page(1, run('Invoice date: 04/05/2026', 0.1, 0.1), run('Total: $10.00', 0.1, 0.2))] };
    expect(field(us, 'invoice_date')!.value).toBe('2026-04-05');
  });

  it('falls back to patterns for IBAN, e-mail, phone and currency, and says so', () => {
    const doc = {
      pages: [
        page(1, run('Muster Handels AG', 0.1, 0.05, 100, 0.02), run('Rechnung', 0.6, 0.05), run('Summe: 1.190,00 €', 0.6, 0.5)),
        page(2, run('Bank GB82 WEST 1234 5698 7654 32 - write to info@muster.example', 0.1, 0.9), run('Call +41 44 668 18 00', 0.1, 0.92)),
      ],
    };
    const fields = extractFields(doc);
    const byName = Object.fromEntries(fields.map((f) => [f.field, f]));
    expect(byName.iban).toMatchObject({ value: 'GB82WEST12345698765432', page: 2, explanation: 'IBAN pattern on page 2 (checksum valid)' });
    expect(byName.email).toMatchObject({ value: 'info@muster.example', explanation: 'e-mail address pattern on page 2' });
    expect(byName.phone).toMatchObject({ value: '+41 44 668 18 00', explanation: 'international phone number pattern on page 2' });
    expect(byName.total_amount).toMatchObject({ value: '1190.00', explanation: "label 'Summe' on page 1, value to the right" });
    expect(byName.currency).toMatchObject({ value: 'EUR', explanation: 'currency written with the total amount on page 1' });
    expect(byName.vendor_name).toMatchObject({
      value: 'Muster Handels AG',
      explanation: "company form 'AG' at the top of page 1; most prominent line at the top of page 1; begins with the name in the domain muster.example (no vendor label)",
    });
    expect(byName.iban!.bbox!.y).toBeCloseTo(0.9);
  });

  it('keeps a labelled IBAN whose checksum fails at low confidence, and finds none by pattern alone', () => {
    const labelled = { pages: [page(1, run('IBAN: DE88 3704 0044 0532 0130 00', 0.1, 0.1))] };
    expect(field(labelled, 'iban')).toMatchObject({ value: 'DE88370400440532013000', explanation: expect.stringContaining('checksum does not verify') });
    expect(field(labelled, 'iban')!.confidence).toBeLessThan(50);
    const unlabelled = { pages: [page(1, run('Pay to DE88 3704 0044 0532 0130 00', 0.1, 0.2))] };
    expect(field(unlabelled, 'iban')).toBeUndefined();
  });

  it('keeps every other labelled value under the snake_case name of its label', () => {
    const doc = { pages: [page(1, run('Kunden-Nr.: K-778', 0.1, 0.1), run('Delivery date: 2 April 2026', 0.1, 0.12), run('Discount: 12,50 EUR', 0.1, 0.14), run('Currency: maybe', 0.1, 0.16))] };
    const fields = extractFields(doc);
    expect(fields.find((f) => f.field === 'kunden_nr')).toMatchObject({ value: 'K-778', confidence: 85 });
    expect(fields.find((f) => f.field === 'delivery_date')?.value).toBe('2026-04-02');
    expect(fields.find((f) => f.field === 'discount')?.value).toBe('12.50');
    expect(fields.find((f) => f.field === 'currency')?.value).toBe('EUR');
    expect(fields.filter((f) => f.field === 'currency')).toHaveLength(1);
  });

  it('keeps under an amount label only an amount: another label or a stray line under it is not its value', () => {
    const doc = {
      pages: [page(1, run('CASH', 0.1, 0.1), run('MEMBERPOINTS:000', 0.1, 0.12), run('SERVICE CHARGE', 0.1, 0.3), run('GOV TAX', 0.1, 0.32), run('CASH', 0.1, 0.5), run('RM 13.80', 0.6, 0.5), run('Cash sales no: 199176', 0.1, 0.7))],
    };
    const fields = extractFields(doc);
    expect(fields.find((f) => f.field === 'cash')).toMatchObject({ value: '13.80', explanation: "label 'CASH' on page 1, value to the right" });
    expect(fields.find((f) => f.field === 'service_charge')).toBeUndefined();
    expect(fields.find((f) => f.field === 'cash_sales_no')?.value).toBe('199176');
  });

  it('scales confidence by OCR word confidence and reports the value box', () => {
    const doc = { pages: [page(1, run('Invoice No.:', 0.1, 0.1, 80), run('A-1', 0.5, 0.1, 60))] };
    const f = field(doc, 'invoice_number')!;
    expect(f.confidence).toBe(Math.round(95 * ((80 + 80 + 60) / 3 / 100)));
    expect(f.bbox).toEqual({ x: 0.5, y: 0.1, width: 3 * CHAR, height: HEIGHT });
    expect(f.page).toBe(1);
  });
});
