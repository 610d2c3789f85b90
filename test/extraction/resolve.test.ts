import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { extractFields } from '../../src/extraction/fields.js';
import { decodeFile } from '../../src/extraction/input.js';
import { createPipeline, type Pipeline, type PipelineResult } from '../../src/extraction/pipeline.js';
import type { FoundField } from '../../src/extraction/types.js';
import { DE_INVOICE, DE_INVOICE_EXPECTED, layoutDocument, layoutPdf, MY_RECEIPT, MY_RECEIPT_EXPECTED, renderPage, sheet, tillRoll, type Layout, type Placed } from '../fixtures/documents.js';

/**
 * The resolver, through `extractFields`: of every finder's candidates it keeps the values that fit
 * together, says so in the explanation and lets agreement and disagreement move the confidence.
 */

type Rows = Parameters<typeof sheet>[0];

function fields(layout: Layout): Map<string, FoundField> {
  return new Map(extractFields(layoutDocument(layout)).map((f) => [f.field, f]));
}

const of = (rows: Rows) => fields(sheet(rows));

function values(found: Map<string, FoundField>): Record<string, string> {
  return Object.fromEntries([...found].map(([name, f]) => [name, f.value]));
}

describe('whole documents', () => {
  it('reads the Malaysian receipt', () => {
    const found = fields(MY_RECEIPT);
    expect(values(found)).toMatchObject(MY_RECEIPT_EXPECTED);
    expect(found.get('total_amount')!.confidence).toBeGreaterThanOrEqual(95);
  });

  it('reads the German invoice', () => {
    const found = fields(DE_INVOICE);
    expect(values(found)).toMatchObject({ ...DE_INVOICE_EXPECTED, vendor_address: 'Lieferantenstraße 20, 80333 München' });
    for (const name of ['subtotal', 'tax_amount', 'total_amount']) expect(found.get(name)!.confidence).toBeGreaterThanOrEqual(95);
  });
});

describe('totals that add up', () => {
  it('takes the sums row of a tax summary with a row per rate, and says so', () => {
    const columns = [['Nettobetrag', '321,40', '127,59', '448,99'], ['MwSt-Betrag', '61,07', '8,93', '70,00'], ['Endbetrag', '382,47', '136,52', '518,99']];
    const summary: Layout = {
      width: 595,
      height: 842,
      texts: [
        { text: 'Musterlieferant GmbH', x: 50, y: 60, size: 14 },
        ...columns.flatMap((column, c) => column.map((text, r): Placed => ({ text, x: 300 + c * 100, y: 400 + r * 16 + (r === 3 ? 8 : 0), align: 'right' }))),
      ],
    };
    const found = fields(summary);
    expect(values(found)).toMatchObject({ subtotal: '448.99', tax_amount: '70.00', total_amount: '518.99' });
    expect(found.get('subtotal')!.explanation).toContain("label 'Nettobetrag' on page 1, the sum of the 2 amounts under it");
  });

  it('sums no column of whole numbers: points under a "Total Points" heading are no money', () => {
    const points: Layout = {
      width: 595,
      height: 842,
      texts: [
        { text: 'Musterlieferant GmbH', x: 50, y: 60, size: 14 },
        ...['Total Points', '2264', '43', '2307'].map((text, r): Placed => ({ text, x: 300, y: 400 + r * 16, align: 'right' })),
      ],
    };
    expect(fields(points).get('total_amount')?.value).not.toBe('2307.00');
  });

  it('takes the total that subtotal + tax confirm over a larger labelled amount', () => {
    const found = of(['ACME Trading Ltd', 'Invoice No: 1001', '', ['Subtotal', '100.00'], ['VAT 20%', '20.00'], ['Total', '120.00'], ['Balance due', '150.00']]);
    expect(found.get('total_amount')).toMatchObject({ value: '120.00', explanation: "label 'Total' on page 1, value to the right; equals subtotal 100.00 + tax 20.00" });
    expect(found.get('subtotal')).toMatchObject({ value: '100.00', explanation: "label 'Subtotal' on page 1, value to the right; with tax 20.00 makes the total 120.00" });
    expect(found.get('tax_amount')).toMatchObject({ value: '20.00', explanation: "label 'VAT 20%' on page 1, value to the right; with subtotal 100.00 makes the total 120.00" });
  });

  it('takes the total that subtotal + tax confirm over an earlier labelled amount', () => {
    const found = of(['ACME Trading Ltd', 'Invoice No: 1001', '', ['Total', '99.00'], ['Subtotal', '100.00'], ['VAT 20%', '20.00'], ['Amount due', '120.00']]);
    expect(found.get('total_amount')).toMatchObject({ value: '120.00', explanation: "label 'Amount due' on page 1, value to the right; equals subtotal 100.00 + tax 20.00" });
  });

  it('takes the grand total (Bruttosumme) over the amount due after a prepayment (Zahlbetrag)', () => {
    const found = fields(DE_INVOICE);
    expect(found.get('total_amount')).toMatchObject({ value: '529.87', explanation: "label 'Bruttosumme' on page 1, value to the right; equals subtotal 473.00 + tax 56.87" });
    // Without subtotal and tax to confirm either, the larger labelled total is the grand total.
    expect(of(['Lieferant GmbH', 'Rechnung Nr. 42', '', ['Bruttosumme', '529,87'], ['Erhaltene Anzahlungen', '-100,00'], ['Zahlbetrag', '429,87']]).get('total_amount')).toMatchObject({ value: '529.87' });
  });

  it('marks a total down when the subtotal and tax found do not add up to it', () => {
    const fits = of(['ACME Trading Ltd', '', ['Subtotal', '100.00'], ['VAT 20%', '20.00'], ['Total', '120.00']]);
    const differs = of(['ACME Trading Ltd', '', ['Subtotal', '100.00'], ['VAT 20%', '20.00'], ['Total', '125.00']]);
    expect(differs.get('total_amount')).toMatchObject({ value: '125.00', explanation: "label 'Total' on page 1, value to the right; subtotal and tax found do not add up to it" });
    expect(differs.get('total_amount')!.confidence).toBeLessThan(fits.get('total_amount')!.confidence);
    expect(differs.get('subtotal')!.explanation).toContain('does not add up with the other amounts');
    expect(differs.get('subtotal')!.confidence).toBeLessThan(fits.get('subtotal')!.confidence);
  });

  it('takes the total the line items add up to, and says so', () => {
    const columns = [50, 330, 430, 545];
    const row = (y: number, cells: string[]): Placed[] => cells.map((text, i) => ({ text, x: columns[i]!, y, align: i ? 'right' : 'left' }));
    const found = fields({
      width: 595,
      height: 842,
      texts: [
        { text: 'Muster GmbH', x: 50, y: 50, size: 16, bold: true },
        { text: 'Rechnung Nr. 17', x: 50, y: 120 },
        ...row(200, ['Beschreibung', 'Menge', 'Einzelpreis', 'Betrag']),
        ...row(216, ['Beratung', '2', '50,00', '100,00']),
        ...row(232, ['Reisekosten', '1', '19,00', '19,00']),
        ...row(280, ['Gesamtbetrag', '', '', '119,00']).filter((p) => p.text),
        ...row(296, ['Zu zahlen', '', '', '140,00']).filter((p) => p.text),
      ],
    });
    expect(found.get('total_amount')).toMatchObject({ value: '119.00', explanation: "label 'Gesamtbetrag' on page 1, value to the right; equals the sum of the line items" });
    expect(found.get('line_items.1.amount')).toMatchObject({ value: '19.00' });
  });
});

describe('receipts', () => {
  it('reads a total OCR misread by one figure as what subtotal, tax and rounding make, on an OCR page only', () => {
    const rows = tillRoll(['KEDAI MAJU SDN BHD', ['Sub Total (RM)', '106.10'], ['Total GST (RM)', '6.37'], ['Rounding (RM)', '-RM 0.02'], ['Total (RM)', '112.46']]);
    const scanned = new Map(extractFields(layoutDocument(rows, 'ocr')).map((f) => [f.field, f]));
    expect(scanned.get('total_amount')).toMatchObject({ value: '112.45', explanation: "label 'Total (RM)' on page 1, value to the right; printed 112.46, one figure off; equals subtotal 106.10 + tax 6.37 with the rounding -0.02" });
    // On a text layer the printed total stands: the rounding does not take it to five cents.
    expect(fields(rows).get('total_amount')!.value).toBe('112.46');
  });

  it('reads no amount from a figure inside a word, and takes subtotal + tax over a "Total" that is the subtotal', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', ['TOTAL EXCL.G5T', '28.11'], ['ADD GST @ 6%', '1.69'], ['', '29.80'], ['CASH', '50.00'], ['CHANGE', '20.20']]));
    expect(found.get('total_amount')!.value).toBe('29.80');
    const summary = fields(tillRoll(['KEDAI MAJU SDN BHD', ['Total Sales (Excluding GST)', '20.00'], ['Total GST', '1.20'], ['Sales (Inclusive of GST)', '21.20'], ['GST Summary', ''], ['Total :', '20.00']]));
    expect(summary.get('total_amount')!.value).toBe('21.20');
  });

  it('takes no currency from a dollar sign before a number without cents', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '$000046284', ['TOTAL', '12.00'], ['CASH', '20.00'], ['CHANGE', '8.00']]));
    expect(found.get('currency')).toBeUndefined();
    expect(fields(tillRoll(['KEDAI MAJU SDN BHD', ['TOTAL', '$ 12.00']])).get('currency')!.value).toBe('USD');
  });

  it('takes no total after a rounding that does not make five cents: OCR lost its minus sign', () => {
    const receipt = (rounding: string) => fields(tillRoll(['TIMES BOOKSTORES', ['Total', 'RM 12.37'], ['Rounding Adjustments', rounding], ['Tendered-CASH', 'RM 50.00'], ['Change', 'RM 37.65']]));
    expect(receipt('RM 0.02').get('total_amount')!.value).toBe('12.37');
    expect(receipt('RM -0.02').get('total_amount')).toMatchObject({ value: '12.35', explanation: expect.stringContaining('12.37 with the rounding -0.02') });
  });

  it("takes a booking ID for the document's number only where no invoice number is printed", () => {
    expect(of(['Acme Hotels Ltd', ['Booking ID', 'IBZY2087'], ['Grand Total', '1939.00']]).get('invoice_number')).toMatchObject({ value: 'IBZY2087', explanation: "label 'Booking ID' on page 1, value to the right" });
    expect(of(['Acme Hotels Ltd', ['Booking ID', 'BK77'], ['Invoice No', 'INV-2024-001'], ['Grand Total', '1939.00']]).get('invoice_number')!.value).toBe('INV-2024-001');
  });

  it('reads a date of eight figures beside a date label only', () => {
    const labelled = fields(tillRoll(['KEDAI MAJU SDN BHD', ['Date/Time', ': 20180428/191204'], ['TOTAL', '12.00']]));
    expect(labelled.get('invoice_date')).toMatchObject({ value: '2018-04-28', explanation: expect.stringContaining("label 'Date/Time'") });
    expect(fields(tillRoll(['KEDAI MAJU SDN BHD', 'No 20180428', ['TOTAL', '12.00']])).get('invoice_date')).toBeUndefined();
  });

  it("takes no yen from a '¥' OCR read at an amount with cents, but the currency the document names in letters", () => {
    const rows = sheet(['Acme Retail Pvt. Ltd.', 'Price is inclusive of a discount of Rs -40.00', ['Grand Total', '¥ 319.00']]);
    const scanned = new Map(extractFields(layoutDocument(rows, 'ocr')).map((f) => [f.field, f]));
    expect(scanned.get('currency')).toMatchObject({ value: 'INR', explanation: expect.stringContaining('currency named on 1 line') });
    expect(fields(rows).get('currency')!.value).toBe('JPY');
    const yen = sheet(['Acme Retail Pvt. Ltd.', ['Grand Total', '¥ 319']]);
    expect(new Map(extractFields(layoutDocument(yen, 'ocr')).map((f) => [f.field, f])).get('currency')!.value).toBe('JPY');
  });

  it('takes the rounded total after the specks OCR read beside its label', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', ['TOTAL', 'RM 33.92'], ['ROUNDING ADJ', '-RM 0.02'], ['TOTAL ROUNDED 7) 9 0', 'RM 33.90'], ['CASH', 'RM 50.00'], ['CHANGE', 'RM 16.10']]));
    expect(found.get('total_amount')!.value).toBe('33.90');
  });

  it('reads a total label OCR misread by one letter on an OCR page only, and takes no rounding larger than half a coin', () => {
    const rows = tillRoll(['KEDAI MAJU SDN BHD', ['SUBTOTAL', '188.00'], ['Rounding Adj', '0.60'], ['Tatal Inclusive GST', '165.00'], ['MASTER', '185.00']]);
    const scanned = new Map(extractFields(layoutDocument(rows, 'ocr')).map((f) => [f.field, f]));
    expect(scanned.get('total_amount')).toMatchObject({ value: '165.00', explanation: expect.stringContaining("label 'Total Inclusive GST'") });
    expect(fields(rows).get('total_amount')?.explanation ?? '').not.toContain('Total Inclusive GST');
  });

  it('takes what was paid: the total after its rounding adjustment, confirmed by cash tendered minus change', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['TOTAL', '42.42'], ['ROUNDING ADJ', '-0.02'], ['CASH', '50.00'], ['CHANGE', '7.60']]));
    expect(found.get('document_type')!.value).toBe('receipt');
    expect(found.get('total_amount')).toMatchObject({ value: '42.40', explanation: "label 'TOTAL' on page 1, value to the right; 42.42 with the rounding -0.02; equals 50.00 tendered minus 7.60 change" });
  });

  it('takes the rounded total printed under the rounding line, though a larger labelled count stands beside the total', () => {
    const found = fields(tillRoll(['INDAH GIFT SDN BHD', '19/10/2018 20:49', ['TOTAL QTY', '2'], ['TOTAL AMT', '60.31'], ['ROUNDING ADJ', '-0.01'], ['RM', '60.30']]));
    expect(found.get('total_amount')).toMatchObject({ value: '60.30' });
    expect(found.get('total_amount')!.explanation).toContain('60.31 with the rounding -0.01; printed after the rounding');
  });

  it('confirms the receipt’s rounded total by subtotal + tax with the rounding, and by cash minus change', () => {
    const total = fields(MY_RECEIPT).get('total_amount')!;
    expect(total.value).toBe('42.40');
    expect(total.explanation).toContain('equals subtotal 40.02 + tax 2.40 with the rounding -0.02');
    expect(total.explanation).toContain('equals 50.00 tendered minus 7.60 change');
    expect(total.confidence).toBeGreaterThanOrEqual(95);
  });

  it('counts a service charge between the subtotal and a total whose label OCR garbled', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['SUB TOTAL', '295.00'], ['SERVICE CHARGE 10%', '29.50'], ['GST 6%', '19.47'], ['ROUNDING ADJ', '-0.02'], ['[UTAL', '343.95'], 'THANK YOU']));
    expect(found.get('total_amount')).toMatchObject({ value: '343.95', explanation: expect.stringContaining('equals subtotal 295.00 + tax 19.47 with the service charge 29.50 and the rounding -0.02') });
    expect(values(found)).toMatchObject({ subtotal: '295.00', tax_amount: '19.47' });
  });

  it('takes no "Gross Amount" for the total when tax added to it makes another amount printed', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['Gross Amount', '40.00'], ['Total GST Amt', '2.40'], ['Sub Total', '42.40'], ['Total (RH)', ''], 'THANK YOU']));
    expect(found.get('total_amount')!.value).toBe('42.40');
  });

  it('takes the later of two totals a few cents apart, in five cents, when OCR lost the rounding line’s figure', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['Total (Excluding GST):', '21.94'], ['GST payable (6%):', '1.32'], ['Total (Inclusive of GST):', '23.26'], ['Rounding Adj:', ''], ['TOTAL:', '23.25'], 'THANK YOU']));
    expect(found.get('total_amount')).toMatchObject({ value: '23.25', explanation: expect.stringContaining('the total 23.26 rounded') });
  });

  it('takes a card payment for the amount paid when OCR lost the total', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['J RS EY:', ''], ['Master Card', '63.80'], 'THANK YOU']));
    expect(found.get('total_amount')).toMatchObject({ value: '63.80', explanation: expect.stringContaining('63.80 paid, no change given') });
  });

  it('takes what was paid over a printed total OCR read without its first figures', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['GST', '1.00'], ['Grand Total', '9.30'], ['Cash', '30.30'], ['Change', '1.00'], 'THANK YOU']));
    expect(found.get('total_amount')).toMatchObject({ value: '29.30', explanation: expect.stringContaining('the total printed as 9.30 with its first figures lost') });
    const noChange = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['6% GST', '0.68'], ['TOTAL', '2.00'], ['CASH', '12.00'], 'THANK YOU']));
    expect(noChange.get('total_amount')!.value).toBe('12.00');
  });

  it('takes what was paid, printed on the receipt too, over a labelled total one figure off it', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['1 Item (Inclusive of GST)', '71.00'], ['TOTAL', '11.00'], ['Cash Received', '101.00'], ['Change', '30.00'], 'THANK YOU']));
    expect(found.get('total_amount')).toMatchObject({ value: '71.00', explanation: expect.stringContaining('equals 101.00 tendered minus 30.00 change') });
    // Without the paid amount printed elsewhere, the label's amount stands: the misread may be the cash's.
    const unprinted = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['TOTAL', '11.00'], ['Cash Received', '101.00'], ['Change', '30.00'], 'THANK YOU']));
    expect(unprinted.get('total_amount')!.value).toBe('11.00');
  });

  it('takes the address at the head of a receipt whose vendor is named further down, less surely', () => {
    const rows: (string | [string, string])[] = ["DOMINO'S PIZZA SEGAMBUT", 'D-08, M Avenue, Jln 1/38A', '51200 Kuala Lumpur', 'GST REF NO : 001694261248', '26/03/18 12:54', ['TOTAL', '33.00'], ['CASH', '50.00'], ['CHANGE', '17.00'], 'Owned by', 'Dommal Food Services Sdn Bhd', 'THANK YOU'];
    const found = fields(tillRoll(rows));
    expect(found.get('vendor_name')!.value).toBe('Dommal Food Services Sdn Bhd');
    expect(found.get('vendor_address')).toMatchObject({ value: 'D-08, M Avenue, Jln 1/38A 51200 Kuala Lumpur', explanation: expect.stringContaining("under 'DOMINO'S PIZZA SEGAMBUT', not the vendor's name") });
    // "GST REF NO" names the letterhead's tax number, not the receipt's own number.
    expect(found.get('vendor_tax_id')!.value).toBe('001694261248');
    expect(found.get('invoice_number')?.value).not.toBe('001694261248');
    const own = fields(tillRoll(rows.slice(0, -3)));
    expect(found.get('vendor_address')!.confidence).toBeLessThan(own.get('vendor_address')!.confidence);
  });

  it('takes the surer of two dates one figure apart on a scanned receipt, as one date misread', () => {
    const scanned = (doubtful: number) => {
      const doc = layoutDocument(tillRoll(['KEDAI MAJU SDN BHD', ['Date', '18/03/2017 03:00:42PM'], ['TOTAL', '9.90'], ['Print Date', '13/03/2017 03:00:44PM'], 'THANK YOU']), 'ocr');
      for (const line of doc.pages[0]!.lines.filter((l) => l.text.startsWith('18/03'))) {
        line.confidence = doubtful;
        for (const word of line.words) word.confidence = doubtful;
      }
      return new Map(extractFields(doc).map((f) => [f.field, f]));
    };
    expect(scanned(47).get('invoice_date')).toMatchObject({ value: '2017-03-13', explanation: expect.stringContaining('read more surely than 2017-03-18, one figure apart') });
    expect(scanned(80).get('invoice_date')!.value).toBe('2017-03-18');
  });

  it('without a total label, takes cash tendered minus change, at a lower confidence than a labelled total', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['CASH', '50.00'], ['CHANGE', '7.60'], 'THANK YOU']));
    const total = found.get('total_amount')!;
    expect(total.value).toBe('42.40');
    expect(total.explanation).toContain('50.00 tendered minus 7.60 change');
    const labelled = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['TOTAL', '42.40'], ['CASH', '50.00'], ['CHANGE', '7.60'], 'THANK YOU'])).get('total_amount')!;
    expect(total.confidence).toBeLessThan(labelled.confidence);
  });

  it('never takes the cash tendered or the change for the total', () => {
    const found = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', ['NASI LEMAK', '8.50'], ['TOTAL', '8.50'], ['CASH', '100.00'], ['CHANGE', '91.50']]));
    expect(found.get('total_amount')!.value).toBe('8.50');
  });

  it('gives an unconfirmed receipt total a lower confidence than a confirmed one, and says why', () => {
    const alone = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', 'CASHIER: ANN', ['TOTAL', '42.40'], 'THANK YOU'])).get('total_amount')!;
    const confirmed = fields(tillRoll(['KEDAI MAJU SDN BHD', '15/03/2018 14:25', 'CASHIER: ANN', ['TOTAL', '42.40'], ['CASH', '50.00'], ['CHANGE', '7.60'], 'THANK YOU'])).get('total_amount')!;
    expect(alone.value).toBe('42.40');
    expect(alone.explanation).toContain('no other amount on the receipt confirms it');
    expect(confirmed.explanation).toContain('equals 50.00 tendered minus 7.60 change');
    expect(alone.confidence).toBeLessThan(confirmed.confidence);
  });

  it('reads "Total Sales (Excluding GST)" as the subtotal and the total including GST as the total', () => {
    const found = of(['ABC Sdn Bhd', '', '', ['Total Sales (Excluding GST)', '40.00'], ['GST @6%', '2.40'], ['Total Sales (Inclusive GST)', '42.40']]);
    expect(found.get('subtotal')).toMatchObject({ value: '40.00', explanation: "label 'Total Sales (Excluding GST)' on page 1, value to the right; with tax 2.40 makes the total 42.40" });
    expect(found.get('total_amount')).toMatchObject({ value: '42.40', explanation: "label 'Total Sales (Inclusive GST)' on page 1, value to the right; equals subtotal 40.00 + tax 2.40" });
  });

  it('reads any total named as excluding tax as the subtotal', () => {
    const found = of(['ABC Sdn Bhd', '', '', ['Grand Total (Excluding GST)', '40.00'], ['GST', '2.40'], ['Grand Total', '42.40']]);
    expect(found.get('subtotal')!.value).toBe('40.00');
    expect(found.get('total_amount')!.value).toBe('42.40');
  });
});

describe('dates', () => {
  it('rejects a due date before the invoice date', () => {
    const found = of(['ACME Ltd', 'Invoice date: 10.03.2026', 'Due date: 01.03.2026', '', ['Total', '10.00']]);
    expect(found.get('invoice_date')!.value).toBe('2026-03-10');
    expect(found.has('due_date')).toBe(false);
  });

  it('takes the due date that follows the invoice date over an earlier one', () => {
    const found = of(['ACME Ltd', 'Invoice date: 10.03.2026', 'Due date: 01.03.2026', 'Payment due: 09.04.2026', '', ['Total', '10.00']]);
    expect(found.get('due_date')).toMatchObject({ value: '2026-04-09', explanation: "label 'Payment due' on page 1, value to the right" });
  });

  it('takes the German invoice’s date from after its number and the due date from its payment terms', () => {
    const found = fields(DE_INVOICE);
    expect(found.get('invoice_date')!.explanation).toMatch(/^date after the invoice number on page 1 \(label 'Rechnung Nr\.'\)/);
    expect(found.get('due_date')).toMatchObject({ value: '2018-04-04', explanation: 'date to pay by in the payment terms on page 1' });
  });
});

describe('parties', () => {
  it('never takes the customer’s block for the vendor', () => {
    const found = fields({
      width: 595,
      height: 842,
      texts: [
        { text: 'Rechnung', x: 400, y: 20, size: 18, bold: true },
        { text: 'Käufer:', x: 50, y: 60 },
        { text: 'Kunden AG Mitte', x: 50, y: 74 },
        { text: 'Kundenstraße 15', x: 50, y: 88 },
        { text: 'Rechnung Nr. 42', x: 50, y: 200 },
        { text: 'Gesamtbetrag', x: 300, y: 400 },
        { text: '119,00', x: 545, y: 400, align: 'right' },
        { text: 'Lieferant GmbH · Lieferantenstraße 20 · 80333 München', x: 50, y: 800, size: 8 },
      ],
    });
    expect(found.get('customer_name')!.value).toBe('Kunden AG Mitte');
    expect(found.get('vendor_name')).toMatchObject({ value: 'Lieferant GmbH' });
  });

  it('takes the vendor’s address from the vendor’s own block, not the letterhead line or the buyer’s block', () => {
    const found = fields(DE_INVOICE);
    expect(found.get('vendor_address')).toMatchObject({ value: 'Lieferantenstraße 20, 80333 München', explanation: "2 lines under the seller's name on page 1" });
    expect(found.get('vendor_name')!.explanation).toMatch(/^first name under the label 'Verkäufer' on page 1, 1 line that is not a name skipped; also /);
  });

  it('takes the company a trade name is owned by, with the address under the trade name', () => {
    const found = fields(tillRoll(['Banh Mi Cafe', 'Dimiliki: banh mi cafe sdn bhd', 'No. 1 Jalan Puteri 7/10', 'Bandar Puteri, 47100 Puchong', 'TEL: 03-8060 1234', ['TOTAL', '23.25'], ['CASH', '50.00'], ['CHANGE', '26.75']]));
    expect(found.get('vendor_name')).toMatchObject({ value: 'banh mi cafe sdn bhd', explanation: "label 'Dimiliki' on page 1, value to the right" });
    expect(found.get('vendor_address')!.value).toBe('No. 1 Jalan Puteri 7/10 Bandar Puteri, 47100 Puchong');
  });
});

describe('document_type', () => {
  it('is a field of every extraction, after the canonical ones: receipt, invoice or credit note', () => {
    const typeOf = (layout: Layout) => extractFields(layoutDocument(layout)).find((f) => f.field === 'document_type')!;
    expect(typeOf(MY_RECEIPT)).toMatchObject({ value: 'receipt', explanation: expect.stringMatching(/^read as receipt: \d+ receipt words/) });
    expect(typeOf(DE_INVOICE)).toMatchObject({ value: 'invoice' });
    expect(of(['ACME GmbH', 'Gutschrift Nr. 88', '', ['Gesamtbetrag', '10,00']]).get('document_type')).toMatchObject({ value: 'credit_note', explanation: 'read as credit note: titled as a credit note' });
    expect(of(['ACME Ltd', 'Credit Note', '', ['Total', '10.00']]).get('document_type')!.value).toBe('credit_note');
  });

  it('reads a document with invoice words as an invoice though it mentions cash', () => {
    const found = of(['ACME Ltd', 'Invoice No: 7', 'Due date: 01.05.2026', 'Payment terms: 30 days', 'IBAN: DE89 3704 0044 0532 0130 00', 'Cash discount 2% within 10 days', '', ['Total', '10.00']]);
    expect(found.get('document_type')!.value).toBe('invoice');
  });
});

describe('label lexicons', () => {
  // Subtotal, tax and total in each language, the total's label with words around the lexicon phrase.
  const cases: [lang: string, vendor: string, rows: [string, string][], total: string][] = [
    ['de', 'Muster GmbH', [['Summe netto', '100,00'], ['zzgl. 19% MwSt.', '19,00'], ['Rechnungsbetrag (brutto) in Euro', '119,00']], '119.00'],
    ['fr', 'Exemple SARL', [['Total HT', '100,00'], ['TVA 20 %', '20,00'], ['Montant total TTC à payer', '120,00']], '120.00'],
    ['es', 'Ejemplo S.L.', [['Base imponible', '100,00'], ['IVA 21%', '21,00'], ['Importe total de la factura', '121,00']], '121.00'],
    ['it', 'Esempio S.r.l.', [['Imponibile', '100,00'], ['IVA 22%', '22,00'], ['Totale complessivo del documento', '122,00']], '122.00'],
    ['nl', 'Voorbeeld B.V.', [['Subtotaal', '100,00'], ['BTW 21%', '21,00'], ['Totaal te betalen incl. BTW', '121,00']], '121.00'],
    ['pt', 'Exemplo Lda', [['Total sem IVA', '100,00'], ['IVA 23%', '23,00'], ['Valor total a pagar (EUR)', '123,00']], '123.00'],
    ['pl', 'Przykład Sp. z o.o.', [['Razem netto', '100,00'], ['Kwota VAT 23%', '23,00'], ['Razem wartość brutto PLN', '123,00']], '123.00'],
    ['ms', 'KEDAI MAJU SDN BHD', [['JUMLAH KECIL', '40.00'], ['CUKAI 6%', '2.40'], ['JUMLAH BESAR (RM)', '42.40']], '42.40'],
  ];

  it.each(cases)('%s: subtotal, tax and a total whose label holds more words than the phrase', (_lang, vendor, rows, total) => {
    const found = of([vendor, '', '', ...rows]);
    const [subtotal, tax] = rows.map(([, v]) => Number(v.replace(',', '.')).toFixed(2));
    expect(found.get('subtotal')!.value).toBe(subtotal);
    expect(found.get('tax_amount')!.value).toBe(tax);
    expect(found.get('total_amount')).toMatchObject({ value: total });
    expect(found.get('total_amount')!.explanation).toContain(`equals subtotal ${subtotal} + tax ${tax}`);
  });

  it('weighs a total under a label that only contains the phrase lower than one under the phrase itself', () => {
    const exact = of(['Muster GmbH', '', '', ['Gesamtbetrag', '10,00']]).get('total_amount')!;
    const loose = of(['Muster GmbH', '', '', ['Endbetrag der Rechnung', '10,00']]).get('total_amount')!;
    expect(loose.value).toBe(exact.value);
    expect(loose.explanation).toContain("label contains 'endbetrag'");
    expect(loose.confidence).toBeLessThan(exact.confidence);
  });
});

describe('through the pipeline', () => {
  const config = { ...loadConfig({}), maxPages: 5, maxImagePixels: 40_000_000, ocrTimeoutMs: 60_000, ocrWorkers: 1, ocrQueueMax: 4 };
  let pipeline: Pipeline;
  let receiptPdf: Buffer;
  let invoicePdf: Buffer;

  beforeAll(async () => {
    pipeline = createPipeline(config);
    [receiptPdf, invoicePdf] = await Promise.all([layoutPdf(MY_RECEIPT), layoutPdf(DE_INVOICE)]);
  });

  afterAll(() => pipeline.close());

  async function extract(bytes: Buffer, fileName: string): Promise<{ result: PipelineResult; found: Record<string, string> }> {
    const result = await pipeline.extract(decodeFile({ file: bytes.toString('base64'), file_name: fileName }));
    return { result, found: Object.fromEntries(result.fields.map((f) => [f.field, f.value])) };
  }

  const essentials = ({ document_type, vendor_name, invoice_date, total_amount }: Record<string, string>) => ({ document_type, vendor_name, invoice_date, total_amount });

  it('reads the receipt from a text PDF', async () => {
    const { result, found } = await extract(receiptPdf, 'receipt.pdf');
    expect(result.ocrPages).toBe(0);
    expect(result.fields.find((f) => f.field === 'document_type')?.value).toBe('receipt');
    expect(essentials(found)).toEqual(essentials(MY_RECEIPT_EXPECTED));
    expect(found).toMatchObject({ vendor_address: MY_RECEIPT_EXPECTED.vendor_address, invoice_number: 'CS00012345' });
  });

  it('reads the German invoice from a text PDF', async () => {
    const { result, found } = await extract(invoicePdf, 'rechnung.pdf');
    expect(result.ocrPages).toBe(0);
    expect(found).toMatchObject(DE_INVOICE_EXPECTED);
    expect(result.fields.find((f) => f.field === 'total_amount')!.explanation).toContain('equals subtotal 473.00 + tax 56.87');
  });

  it('reads the receipt scanned at 300 dpi through OCR', async () => {
    const { result, found } = await extract(await renderPage(receiptPdf, 300), 'receipt.png');
    expect(result.ocrPages).toBe(1);
    expect(result.document.pages[0]!.source).toBe('ocr');
    expect(essentials(found)).toEqual(essentials(MY_RECEIPT_EXPECTED));
    const total = result.fields.find((f) => f.field === 'total_amount')!;
    expect(total.explanation).toContain('equals 50.00 tendered minus 7.60 change');
    expect(total.confidence).toBeGreaterThanOrEqual(70);
    expect(found.vendor_address).toBe(MY_RECEIPT_EXPECTED.vendor_address);
  });
});
