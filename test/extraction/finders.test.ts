import { describe, expect, it } from 'vitest';
import { extractFields } from '../../src/extraction/fields.js';
import { amountRows } from '../../src/extraction/finders/amount-rows.js';
import { unlabelledAmounts } from '../../src/extraction/finders/amounts.js';
import { contacts, ibans } from '../../src/extraction/finders/contacts.js';
import { finderContext } from '../../src/extraction/finders/context.js';
import { unlabelledDates } from '../../src/extraction/finders/dates.js';
import { headerBlock } from '../../src/extraction/finders/header-block.js';
import { partyBlocks } from '../../src/extraction/finders/label-blocks.js';
import { labelledValues } from '../../src/extraction/finders/labelled.js';
import { findLineItems, lineItemSum } from '../../src/extraction/finders/line-items.js';
import { numberSign } from '../../src/extraction/finders/number-sign.js';
import { paymentTerms } from '../../src/extraction/finders/payment-terms.js';
import { numberAfterTitle, numberBesideTitle } from '../../src/extraction/finders/title-number.js';
import type { Candidate, Finder } from '../../src/extraction/finders/types.js';
import { vatIds } from '../../src/extraction/finders/vat-ids.js';
import { vendorSignals } from '../../src/extraction/finders/vendor-signals.js';
import type { DocumentText, PageText } from '../../src/extraction/types.js';
import { DE_INVOICE, layoutDocument, MY_RECEIPT, sheet, tillRoll, type Layout } from '../fixtures/documents.js';

/**
 * Each finder called on its own, on documents built here from words with boxes: the Malaysian
 * receipt and the German invoice of `test/fixtures/documents.ts`, and small pages for the cases
 * those two do not hold.
 */

const receipt = layoutDocument(MY_RECEIPT);
const invoice = layoutDocument(DE_INVOICE);

function run(finder: Finder, doc: DocumentText): Candidate[] {
  return finder(finderContext(doc));
}

/** Field, value and explanation of each candidate, in the finder's order. */
function found(finder: Finder, doc: DocumentText): { field: string; value: string; explanation: string }[] {
  return run(finder, doc).map(({ field, value, explanation }) => ({ field, value, explanation }));
}

function only(candidates: Candidate[], field: string): Candidate[] {
  return candidates.filter((c) => c.field === field);
}

const page = (doc: DocumentText): PageText => doc.pages[0]!;

describe('finderContext', () => {
  it('reads the receipt as a receipt, day-first, row by row', () => {
    const ctx = finderContext(receipt);
    expect(ctx.documentType).toBe('receipt');
    expect(ctx.documentTypeSays).toMatch(/^\d+ receipt words/);
    expect(ctx.order).toBe('day-first');
    expect(ctx.rows.map((r) => r.text)).toContain('15/03/2018 14:25:36 CASHIER: ANN');
    expect(ctx.rows.map((r) => r.text)).toContain('TOTAL (RM) : 42.40');
  });

  it('reads the German invoice as an invoice and knows the buyer’s block', () => {
    const ctx = finderContext(invoice);
    expect(ctx.documentType).toBe('invoice');
    const inBlock = ctx.lines.filter((l) => ctx.inRecipientBlock(l)).map((l) => l.line.text);
    expect(inBlock).toEqual(['Käufer:', 'Kunden AG Mitte', 'Hans Muster', 'Kundenstraße 15', '69876 Frankfurt']);
    expect(ctx.lineOf(page(invoice).lines.find((l) => l.text === 'Bruttosumme')!.words[0]!)?.line.text).toBe('Bruttosumme');
  });
  it("reads a label OCR misread by a letter as the label it is, on OCR pages only, and no phrase that only then contains one", () => {
    const rows = sheet([['UStld', 'DE 232 446 240'], ['Steuer-Nr.', '044 241 601 03'], ['Bandar Puteri', '47100 Puchong']]);
    const pairs = (source: PageText['source']) => finderContext(layoutDocument(rows, source)).pairs.map((p) => [p.label, p.value]);
    expect(pairs('ocr')).toEqual([
      ['UStid', 'DE 232 446 240'],
      ['Steuer-Nr.', '044 241 601 03'],
    ]);
    expect(pairs('text_layer')).toEqual([['Steuer-Nr.', '044 241 601 03']]);
    expect(only(run(labelledValues, layoutDocument(rows, 'ocr')), 'vendor_tax_id').map((c) => c.value)).toEqual(['DE232446240', '04424160103']);
  });
});

describe('labelledValues', () => {
  it('reads every labelled value of the receipt, the total under "TOTAL (RM) :" and the subtotal under a label that says it excludes GST', () => {
    expect(found(labelledValues, receipt)).toEqual([
      { field: 'phone', value: '03-8736 1234', explanation: "label 'TEL' on page 1, value to the right" },
      { field: 'vendor_tax_id', value: '001234567890', explanation: "label 'GST ID' on page 1, value to the right" },
      { field: 'invoice_number', value: 'CS00012345', explanation: "label 'CASH BILL NO' on page 1, value to the right" },
      { field: 'subtotal', value: '40.02', explanation: "label 'TOTAL SALES (EXCLUDING GST)' on page 1, value to the right" },
      { field: 'tax_amount', value: '2.40', explanation: "label 'GST @6%' on page 1, value to the right" },
      { field: 'rounding', value: '-0.02', explanation: "label 'ROUNDING ADJ' on page 1, value to the right" },
      { field: 'total_amount', value: '42.40', explanation: "label 'TOTAL (RM)' on page 1, value to the right" },
      { field: 'amount_tendered', value: '50.00', explanation: "label 'CASH' on page 1, value to the right" },
      { field: 'change_due', value: '7.60', explanation: "label 'CHANGE' on page 1, value to the right" },
    ]);
    expect(only(run(labelledValues, receipt), 'total_amount')[0]!.amount).toBe(42.4);
  });

  it('reads the German invoice: the number and its own date, net, tax, gross, prepayment, amount due, both tax numbers and the IBAN', () => {
    const candidates = run(labelledValues, invoice);
    expect(found(labelledValues, invoice)).toEqual([
      { field: 'customer_name', value: 'Kunden AG Mitte', explanation: "label 'Käufer' on page 1, value below" },
      { field: 'invoice_number', value: '471102', explanation: "label 'Rechnung Nr.' on page 1, value to the right" },
      { field: 'invoice_date', value: '2018-03-05', explanation: "date after the invoice number on page 1 (label 'Rechnung Nr.')" },
      { field: 'subtotal', value: '473.00', explanation: "label 'Rechnungssumme ohne USt.' on page 1, value to the right" },
      { field: 'tax_amount', value: '56.87', explanation: "label 'Steuerbetrag' on page 1, value to the right" },
      { field: 'total_amount', value: '529.87', explanation: "label 'Bruttosumme' on page 1, value to the right" },
      { field: 'prepaid', value: '-100.00', explanation: "label 'Erhaltene Anzahlungen' on page 1, value to the right" },
      { field: 'total_amount', value: '429.87', explanation: "label 'Zahlbetrag' on page 1, value to the right" },
      { field: 'vendor_tax_id', value: 'DE123456789', explanation: "label 'USt-IdNr.' on page 1, value to the right" },
      { field: 'vendor_tax_id', value: '201/113/40209', explanation: "label 'Steuernummer' on page 1, value to the right" },
      { field: 'iban', value: 'DE89370400440532013000', explanation: "label 'IBAN' on page 1, value to the right (checksum valid)" },
    ]);
    // A VAT identification number reads surer than a national tax number; a name below its label less than a value beside it.
    const [vat, taxNumber] = only(candidates, 'vendor_tax_id');
    expect(vat!.score).toBeGreaterThan(taxNumber!.score);
    expect(only(candidates, 'customer_name')[0]!.score).toBeLessThan(vat!.score);
  });

  it('weighs a label that only contains a lexicon phrase lower than the phrase alone, and says which phrase it found', () => {
    const exact = run(labelledValues, layoutDocument(sheet([['Gesamtbetrag', '119,00']])));
    const loose = run(labelledValues, layoutDocument(sheet([['Endbetrag der Rechnung', '119,00']])));
    expect(exact).toMatchObject([{ field: 'total_amount', value: '119.00', explanation: "label 'Gesamtbetrag' on page 1, value to the right" }]);
    expect(loose).toMatchObject([{ field: 'total_amount', value: '119.00', explanation: "label 'Endbetrag der Rechnung' on page 1, value to the right (label contains 'endbetrag')" }]);
    expect(loose[0]!.score).toBeLessThan(exact[0]!.score);
    expect(loose[0]!.score).toBeGreaterThan(0.55);
  });

  it('reads a total named as before tax ("ohne", "exklusive") as the subtotal', () => {
    expect(found(labelledValues, layoutDocument(sheet([['Rechnungsbetrag exklusive Steuer', '100,00']])))).toEqual([
      { field: 'subtotal', value: '100.00', explanation: "label 'Rechnungsbetrag exklusive Steuer' on page 1, value to the right (label contains 'rechnungsbetrag')" },
    ]);
  });

  it('reads a tax number grouped for reading as one number, and keeps the letter after a registration number and a Steuernummer’s slashes', () => {
    const values = (value: string) => only(run(labelledValues, layoutDocument(sheet([['NIP', value]]))), 'vendor_tax_id').map((c) => c.value);
    expect(values('774-00-01-454')).toEqual(['7740001454']);
    expect(values('CHE-123.456.789')).toEqual(['CHE123456789']);
    expect(values('NL8152.54.295.B01')).toEqual(['NL815254295B01']);
    expect(values('933109-X')).toEqual(['933109-X']);
    expect(values('201/113/40209')).toEqual(['201/113/40209']);
  });

  it('reads a compound label by its last part for an IBAN or tax number ("Verkäufer-IBAN"), but not the buyer’s', () => {
    const ibans = (label: string) => only(run(labelledValues, layoutDocument(sheet([[label, 'DE12 1234 4321 9876 00']]))), 'iban').map((c) => c.value);
    expect(ibans('Verkäufer-IBAN')).toEqual(['DE1212344321987600']);
    expect(ibans('Käufer-IBAN')).toEqual([]);
  });

  it('reads the tax a total included ("Total Included GST @ 6%") as the tax amount, not the total', () => {
    expect(found(labelledValues, layoutDocument(sheet([['Total Included GST @ 6%', '1.42']])))).toMatchObject([{ field: 'tax_amount', value: '1.42' }]);
  });

  it('reads the tax on a line that prints its rate and base ("Tax 15% on $ 112.90"), never the base as the tax', () => {
    const tax = (label: string, value: string) => only(run(labelledValues, layoutDocument(sheet([[label, value]]))), 'tax_amount').map((c) => c.value);
    expect(tax('Tax 15% on $ 112.90', '$ 16.94')).toEqual(['16.94']);
    expect(tax('MwSt. 19% auf 100,00 €', '19,00 €')).toEqual(['19.00']);
    expect(tax('Tax 15%', 'on $ 112.90')).toEqual([]);
    const odoo = layoutDocument(sheet([['Subtotal $', '112.00'], ['Subtotal $', '150.90'], ['Subtotal', '$ 262.90'], ['Tax 15% on $ 112.90', '$ 16.94'], ['Total', '$ 279.84']]));
    expect(extractFields(odoo).filter((f) => ['subtotal', 'tax_amount', 'total_amount'].includes(f.field)).map((f) => [f.field, f.value])).toEqual([
      ['subtotal', '262.90'],
      ['tax_amount', '16.94'],
      ['total_amount', '279.84'],
    ]);
  });

  it('reads the digits after "Card No" as a card number, never as an amount paid by card', () => {
    const candidates = run(labelledValues, layoutDocument(tillRoll([['Card No', '14'], ['VISA', '60.00'], ['No Kad', '4417']])));
    expect(candidates.filter((c) => c.field === 'amount_tendered').map((c) => c.value)).toEqual(['60.00']);
    expect(candidates.filter((c) => c.field === 'card_number').map((c) => c.value)).toEqual(['14', '4417']);
  });

  it('reads whom a payment was received by or paid to as the vendor', () => {
    expect(only(run(labelledValues, layoutDocument(sheet([['Payment received by', 'OYO'], ['Grand Total', 'Rs 1939']]))), 'vendor_name').map((c) => c.value)).toEqual(['OYO']);
    expect(only(run(labelledValues, layoutDocument(sheet([['Paid to:', 'Kedai Maju Sdn Bhd']]))), 'vendor_name').map((c) => c.value)).toEqual(['Kedai Maju Sdn Bhd']);
  });

  it('reads a company named after a label word ("Cash & Carry Sdn. Bhd.") as no label, but a label ending in an abbreviation ("Total Inc.") still as one', () => {
    const candidates = run(labelledValues, layoutDocument(sheet([['Zeal Cash & Carry Sdn. Bhd.', '17920'], ['Total Inc.', '50.45']])));
    expect(candidates.filter((c) => c.field === 'amount_tendered')).toEqual([]);
    expect(candidates.filter((c) => c.field === 'total_amount').map((c) => c.value)).toEqual(['50.45']);
  });

  it('never takes a name under a label that only contains a party phrase, and marks down tax details in the customer’s block', () => {
    expect(only(run(labelledValues, layoutDocument(sheet(['Verkäufer und Hersteller:', 'Lieferant GmbH']))), 'vendor_name')).toEqual([]);
    const doc = layoutDocument(sheet(['Käufer:', 'Kunden AG Mitte', 'USt-IdNr.: DE999999999', '', '', 'USt-IdNr.: DE123456789']));
    const ids = only(run(labelledValues, doc), 'vendor_tax_id');
    expect(ids.map((c) => c.value)).toEqual(['DE999999999', 'DE123456789']);
    expect(ids[0]!.score).toBeLessThan(ids[1]!.score);
  });
});

describe('amountRows', () => {
  it('reads receipt rows as a label and the amount at their end, with the currency and colon stripped from the label', () => {
    const candidates = run(amountRows, receipt);
    expect(candidates.map(({ field, value }) => [field, value])).toEqual([
      ['subtotal', '40.02'],
      ['tax_amount', '2.40'],
      ['rounding', '-0.02'],
      ['total_amount', '42.40'],
      ['amount_tendered', '50.00'],
      ['change_due', '7.60'],
    ]);
    const total = candidates.find((c) => c.field === 'total_amount' && c.value === '42.40')!;
    expect(total).toMatchObject({ explanation: "label 'TOTAL' and the amount on one row on page 1", page: 1, amount: 42.4 });
    // "TOTAL SALES (EXCLUDING GST)" keeps its GST (not a currency) and is the lexicon's subtotal phrase, never a total.
    expect(candidates.find((c) => c.value === '40.02')!.explanation).toContain("label 'TOTAL SALES (EXCLUDING GST)'");
  });

  it('reads a row OCR kept in one piece, leader dots and currency included', () => {
    expect(found(amountRows, layoutDocument(tillRoll(['TOTAL AMT........ RM 60.31', 'CASH RM 100.00'])))).toEqual([
      { field: 'total_amount', value: '60.31', explanation: "label 'TOTAL AMT' and the amount on one row on page 1" },
      { field: 'amount_tendered', value: '100.00', explanation: "label 'CASH' and the amount on one row on page 1" },
    ]);
  });

  it('mends the point OCR read as a space and the zero read as O, on OCR pages only', () => {
    const rows = tillRoll([['TOTAL SALES', 'RM 8 60'], ['ROUNDING', 'RMO0.00'], ['QTY 2 15', '']]);
    expect(found(amountRows, layoutDocument(rows, 'ocr'))).toEqual([
      { field: 'total_amount', value: '8.60', explanation: "label 'TOTAL SALES' and the amount on one row on page 1 (read as '8 60')" },
      { field: 'rounding', value: '0.00', explanation: "label 'ROUNDING' and the amount on one row on page 1 (read as 'O0.00')" },
    ]);
    expect(found(amountRows, layoutDocument(tillRoll([['TOTAL SALES', 'RM 8 60']])))).toEqual([]);
    const spaced = found(amountRows, layoutDocument(tillRoll([['Total Sales', 'RM 65. 20']]), 'ocr'));
    expect(spaced).toEqual([{ field: 'total_amount', value: '65.20', explanation: "label 'Total Sales' and the amount on one row on page 1 (read as '65. 20')" }]);
    const spacedOut = found(amountRows, layoutDocument(tillRoll([['TOTAL', 'RM 1 . 3 8']]), 'ocr'));
    expect(spacedOut).toEqual([{ field: 'total_amount', value: '1.38', explanation: "label 'TOTAL' and the amount on one row on page 1 (read as '1 . 3 8')" }]);
  });

  it('mends the letter O OCR read as a zero in a label word, on OCR pages only', () => {
    const rows = tillRoll([['Total Incl.0f GST', '60.00']]);
    expect(found(amountRows, layoutDocument(rows, 'ocr'))).toEqual([
      { field: 'total_amount', value: '60.00', explanation: "label 'Total Incl.Of GST' and the amount on one row on page 1 (label contains 'total')" },
    ]);
    expect(found(amountRows, layoutDocument(rows))).toEqual([]);
  });

  it('leaves rows whose text is no label (items, dates) alone', () => {
    expect(found(amountRows, layoutDocument(tillRoll([['NOTEBOOK A5', '17.00'], ['15/03/2018', '14:25'], ['2 x 8.50', '17.00']])))).toEqual([]);
  });
});

describe('partyBlocks', () => {
  it('takes the seller’s name from under "Verkäufer:" past the customer-number line, its address under the name, and the buyer’s name', () => {
    const candidates = run(partyBlocks, invoice);
    expect(found(partyBlocks, invoice)).toEqual([
      { field: 'vendor_name', value: 'Lieferant GmbH', explanation: "first name under the label 'Verkäufer' on page 1, 1 line that is not a name skipped" },
      { field: 'vendor_address', value: 'Lieferantenstraße 20, 80333 München', explanation: "2 lines under the seller's name on page 1" },
      { field: 'customer_name', value: 'Kunden AG Mitte', explanation: "first name under the label 'Käufer' on page 1" },
    ]);
    expect(candidates[1]!.belongsTo).toBe('Lieferant GmbH');
  });

  it('reads English party labels and stops the address at a contact line', () => {
    const doc = layoutDocument(sheet(['Seller:', 'Northwind Traders Ltd', '1 Main Street', 'London EC1A 1BB', 'Phone: +44 20 7946 0000', '', '', 'Bill to:', 'Contoso Ltd']));
    expect(found(partyBlocks, doc)).toEqual([
      { field: 'vendor_name', value: 'Northwind Traders Ltd', explanation: "first name under the label 'Seller' on page 1" },
      { field: 'vendor_address', value: '1 Main Street, London EC1A 1BB', explanation: "2 lines under the seller's name on page 1" },
      { field: 'customer_name', value: 'Contoso Ltd', explanation: "first name under the label 'Bill to' on page 1" },
    ]);
  });
});

describe('numberBesideTitle', () => {
  it('takes the number beside or under the document title when no label names it', () => {
    expect(found(numberBesideTitle, layoutDocument(sheet([['Invoice', 'INV/2023/03/0008']])))).toEqual([
      { field: 'invoice_number', value: 'INV/2023/03/0008', explanation: "number beside the document title 'Invoice' on page 1 (no number label)" },
    ]);
    expect(found(numberBesideTitle, layoutDocument(sheet(['FACTUUR', '2024-0117'])))).toEqual([
      { field: 'invoice_number', value: '2024-0117', explanation: "number below the document title 'FACTUUR' on page 1 (no number label)" },
    ]);
  });

  it('finds nothing beside a title without a number', () => {
    expect(run(numberBesideTitle, layoutDocument(sheet([['Invoice', 'Thank you for your order']])))).toEqual([]);
  });
});

describe('numberAfterTitle', () => {
  it('reads the number after a title word and a number sign on one row', () => {
    expect(found(numberAfterTitle, layoutDocument(sheet(['Baurechnung Nr. 2024-117 vom 01.02.2024'])))).toEqual([
      { field: 'invoice_number', value: '2024-117', explanation: "number after the document title 'Baurechnung Nr.' on page 1" },
    ]);
  });

  it('leaves a row whose number a label already gave ("Rechnung Nr.") to the labelled values', () => {
    expect(run(numberAfterTitle, invoice)).toEqual([]);
  });
});

describe('unlabelledDates', () => {
  it('takes the receipt’s date printed with a time of day as the moment of sale, surer than a date alone', () => {
    const candidates = run(unlabelledDates, receipt);
    expect(candidates.map(({ field, value, explanation }) => ({ field, value, explanation }))).toEqual([
      { field: 'invoice_date', value: '2018-03-15', explanation: 'first date on page 1, printed with a time of day (no date label)' },
    ]);
    const [untimed] = run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', '15/03/2018'])));
    expect(untimed).toMatchObject({ value: '2018-03-15', explanation: 'first date on page 1 (no date label)' });
    expect(candidates[0]!.score).toBeGreaterThan(untimed!.score);
  });

  it('reads a date printed as eight figures before a time of day, day first or year first', () => {
    expect(run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', '00440010036 25032018 13:11:54 0003'])))[0]).toMatchObject({ value: '2018-03-25' });
    expect(run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', '20180325 13:11'])))[0]).toMatchObject({ value: '2018-03-25' });
    expect(run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', 'REF 25032018'])))).toEqual([]);
  });

  it('ranks the invoice’s first date above the later ones', () => {
    const candidates = run(unlabelledDates, invoice);
    expect(candidates.map((c) => [c.value, c.explanation])).toEqual([
      ['2018-03-05', 'first date on page 1 (no date label)'],
      ['2018-04-04', 'date on page 1 (no date label)'],
    ]);
    expect(candidates[0]!.score).toBeGreaterThan(candidates[1]!.score);
  });

  it('reads a date whose first separator OCR dropped only on an OCR page, and as doubtful', () => {
    const layout = tillRoll(['KEDAI MAJU', '1503/2018 14:25']);
    expect(run(unlabelledDates, layoutDocument(layout))).toEqual([]);
    const [date] = run(unlabelledDates, layoutDocument(layout, 'ocr'));
    expect(date).toMatchObject({ field: 'invoice_date', value: '2018-03-15', explanation: 'first date on page 1, printed with a time of day (no date label)' });
    const [whole] = run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', '15/03/2018 14:25']), 'ocr'));
    expect(whole!.value).toBe('2018-03-15');
    expect(date!.score).toBeLessThan(whole!.score);
  });

  it('mends a date’s zero OCR read as 6 or 8 on an OCR page only, and reads spaced separators and month names between slashes', () => {
    const slips = tillRoll(['KEDAI MAJU', '17/83/2017 21:35']);
    expect(run(unlabelledDates, layoutDocument(slips))).toEqual([]);
    expect(run(unlabelledDates, layoutDocument(slips, 'ocr'))[0]!.value).toBe('2017-03-17');
    expect(run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', '12-02-2618']), 'ocr'))[0]!.value).toBe('2018-02-12');
    expect(run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', '30- 04 -2018 10:49'])))[0]!.value).toBe('2018-04-30');
    expect(run(unlabelledDates, layoutDocument(tillRoll(['KEDAI MAJU', '02/Jan/2017 10:49:25'])))[0]!.value).toBe('2017-01-02');
  });
});

describe('paymentTerms', () => {
  it('takes the date to pay by from the German payment terms', () => {
    expect(found(paymentTerms, invoice)).toEqual([{ field: 'due_date', value: '2018-04-04', explanation: 'date to pay by in the payment terms on page 1' }]);
  });

  it('reads payment terms in other languages and ignores dates that are not a deadline', () => {
    const doc = layoutDocument(sheet(['Payable avant le 15/04/2026', 'Please pay by 3 May 2026', 'Zahlung erhalten am 01.04.2026', 'Delivered on 02.04.2026']));
    expect(run(paymentTerms, doc).map((c) => c.value)).toEqual(['2026-04-15', '2026-05-03']);
  });
});

describe('ibans', () => {
  it('finds an IBAN by shape and checksum, and marks one in the customer’s block down', () => {
    const [own] = run(ibans, invoice);
    expect(own).toMatchObject({ field: 'iban', value: 'DE89370400440532013000', explanation: 'IBAN pattern on page 1 (checksum valid)' });
    const theirs = run(ibans, layoutDocument(sheet(['Bill to:', 'Contoso Ltd', 'GB82 WEST 1234 5698 7654 32'])));
    expect(theirs).toMatchObject([{ value: 'GB82WEST12345698765432' }]);
    expect(theirs[0]!.score).toBeLessThan(own!.score);
  });

  it('passes over a number shaped like an IBAN whose checksum fails', () => {
    expect(run(ibans, layoutDocument(sheet(['IBAN DE89 3704 0044 0532 0130 01'])))).toEqual([]);
  });
});

describe('contacts', () => {
  it('finds e-mail addresses and international phone numbers outside the customer’s block', () => {
    const doc = layoutDocument(sheet(['Lieferant GmbH', 'billing@lieferant.example · +49 89 1234567', '', '', 'Käufer:', 'einkauf@kunde.example', '+49 69 7654321']));
    expect(found(contacts, doc)).toEqual([
      { field: 'email', value: 'billing@lieferant.example', explanation: 'e-mail address pattern on page 1' },
      { field: 'phone', value: '+49 89 1234567', explanation: 'international phone number pattern on page 1' },
    ]);
  });

  it('takes no phone number from a line with an IBAN', () => {
    expect(run(contacts, invoice)).toEqual([]);
  });

  it('finds a North American number printed with its area code in brackets, and no other run of figures in brackets', () => {
    const doc = layoutDocument(sheet(['(870)-931-0505 azure.interior@example.com', 'Call (212) 555 0147', 'Order (123) 4567-8901', 'Ref (001)234-56789']));
    expect(found(contacts, doc).filter((c) => c.field === 'phone')).toEqual([
      { field: 'phone', value: '(870)-931-0505', explanation: 'North American phone number pattern on page 1' },
      { field: 'phone', value: '(212) 555 0147', explanation: 'North American phone number pattern on page 1' },
    ]);
  });
});

describe('numberSign', () => {
  it('takes an identifier after a number sign on a line of its own near the top, weakly', () => {
    const doc = layoutDocument(sheet(['Sammy Maystone', 'N V E', '# invoice_number_1', 'Date: Jan 1, 2022', ['Balance Due:', '$127.50']]));
    expect(found(numberSign, doc)).toEqual([{ field: 'invoice_number', value: 'invoice_number_1', explanation: 'number after a number sign at the top of page 1 (no label)' }]);
    expect(run(numberSign, doc)[0]!.score).toBeLessThan(0.7);
    expect(run(numberSign, layoutDocument(sheet(['Sammy Maystone', '# 5 items in this order', ['Total', '12.00']])))).toEqual([]);
  });
});

describe('vatIds', () => {
  it('reads a VAT number printed inline after its label, without a colon or inside a footer line', () => {
    const doc = layoutDocument(sheet(['Coolblue B.V.', 'BTW NL810433941B01', 'Free SAS au capital de 3.441.812 Euros - N° de TVA intra communautaire: FR 604 219 388 61', 'Kundennummer 12345678901']));
    expect(found(vatIds, doc)).toEqual([
      { field: 'vendor_tax_id', value: 'NL810433941B01', explanation: "VAT number after the label 'BTW' on page 1" },
      { field: 'vendor_tax_id', value: 'FR60421938861', explanation: "VAT number after the label 'TVA intra communautaire' on page 1" },
    ]);
    expect(run(vatIds, layoutDocument(sheet(['IBAN NL50INGB0683251309', 'DE123456789'])))).toEqual([]);
  });
});

describe('headerBlock', () => {
  it('takes the receipt’s company line as the vendor and the lines under its registration number, down to the phone, as its address', () => {
    const candidates = run(headerBlock, receipt);
    expect(found(headerBlock, receipt)).toEqual([
      { field: 'vendor_name', value: 'KEDAI BUKU MAJU SDN BHD', explanation: 'company line of the header block on page 1' },
      { field: 'vendor_address', value: 'NO. 12, JALAN MAJU 3/2, TAMAN MAJU JAYA, 43000 KAJANG, SELANGOR DARUL EHSAN', explanation: '4 address lines under the vendor name in the header block on page 1' },
    ]);
    expect(candidates[1]!.belongsTo).toBe('KEDAI BUKU MAJU SDN BHD');
  });

  it('weighs the letterhead of an invoice as a hint only', () => {
    const [name, address] = run(headerBlock, invoice);
    expect(name).toMatchObject({ field: 'vendor_name', value: 'Lieferant GmbH' });
    expect(name!.score).toBeLessThan(run(headerBlock, receipt)[0]!.score);
    expect(name!.score).toBeLessThan(run(partyBlocks, invoice)[0]!.score);
    expect(address).toMatchObject({ field: 'vendor_address', value: 'Lieferantenstraße 20 · 80333 München · Deutschland', belongsTo: 'Lieferant GmbH' });
  });

  it('joins a name to the legal form on the line under it, and strips a registration number after the name', () => {
    const split = layoutDocument(tillRoll(['PASARAYA BORONG PINTAR', 'SDN BHD', '(933109-X)', 'LOT 18-A, JALAN KPB 6,', '43300 SERI KEMBANGAN', 'TEL: 03-8941 1234', ['TOTAL', '9.90'], ['CASH', '10.00'], ['CHANGE', '0.10']]));
    expect(run(headerBlock, split).map((c) => c.value)).toEqual(['PASARAYA BORONG PINTAR SDN BHD', 'LOT 18-A, JALAN KPB 6, 43300 SERI KEMBANGAN']);
    const trailing = layoutDocument(tillRoll(['GOLDEN SCOOP SDN BHD (169609-A)', 'NO. 3, JALAN TIN', '43000 KAJANG', ['TOTAL', '9.90'], ['CASH', '10.00'], ['CHANGE', '0.10']]));
    expect(run(headerBlock, trailing).map((c) => c.value)).toEqual(['GOLDEN SCOOP SDN BHD', 'NO. 3, JALAN TIN 43000 KAJANG']);
    // A seven-digit registration number reads like a phone number; the company line before it still names the vendor.
    // The letterhead's tax number, its label and value read as two lines, does not end the header.
    const taxNumber = layoutDocument(tillRoll(['Farmasi Maluri S/B(587969-U)', ['GST NO:', '000342237184'], '23, Jln Burung Jentayu, Tmn Bukit', 'Maluri, Kepong, 52100 KL.', ['TOTAL', '9.90']]));
    expect(run(headerBlock, taxNumber).map((c) => c.value)).toEqual(['Farmasi Maluri S/B', '23, Jln Burung Jentayu, Tmn Bukit Maluri, Kepong, 52100 KL.']);
    // A title above the company, however OCR misread it, does not end the header before it starts.
    const titled = layoutDocument(tillRoll([['TAX', 'INVQICE'], 'BHPetrol Subang Airport', 'Jalan Lapangan Terbang Subang', '47200 Subang', 'CO. REG. NO: 000948487-V', ['TOTAL', '9.90']]));
    expect(run(headerBlock, titled).map((c) => c.value)).toEqual(['BHPetrol Subang Airport', 'Jalan Lapangan Terbang Subang 47200 Subang']);
    // A unit code starts an address ("A-G-06, DATARAN GLOMAC,"); a colon OCR read at a row's end does not end it.
    const unit = layoutDocument(tillRoll(['URBAN IDEA SDN BHD (417940-M)', 'A-G-06, DATARAN GLOMAC,', 'JALAN SS6/5A, KELANA JAYA :', '47301 PETALING JAYA', 'GST ID : 002017394688', ['TOTAL', '9.90']]));
    expect(run(headerBlock, unit).map((c) => c.value)).toEqual(['URBAN IDEA SDN BHD', 'A-G-06, DATARAN GLOMAC, JALAN SS6/5A, KELANA JAYA 47301 PETALING JAYA']);
    // "109, SS21/1A," is a house number and street; an item with its price is no address, whatever its code.
    const section = layoutDocument(tillRoll(['BISTRO & CAFE', '109, SS21/1A,', 'DAMANSARA UTAMA', 'GST ID : 001661886464', ['TOTAL', '9.90']]));
    expect(run(headerBlock, section).map((c) => c.value)).toEqual(['BISTRO & CAFE', '109, SS21/1A, DAMANSARA UTAMA']);
    // Trade words alone under a name say what the business is: the name above is the vendor.
    const described = layoutDocument(tillRoll(['THREE STOOGES', 'BISTRO & CAFE', '109, SS21/1A,', 'DAMANSARA UTAMA', 'GST ID : 001661886464', ['TOTAL', '9.90']]));
    expect(run(headerBlock, described).map((c) => c.value)).toEqual(['THREE STOOGES', '109, SS21/1A, DAMANSARA UTAMA']);
    // No name above the address: the row right above it is the name when it reads as one but for its figures.
    const numbered = layoutDocument(tillRoll(['32 PUB & BISTRO own by CNU TRADING', '78G, JALAN SS21/62,', 'DAMANSARA UTAMA,', '47400 PETALING JAYA', 'GST ID : 001661886464', ['TOTAL', '9.90']]));
    expect(run(headerBlock, numbered).map((c) => [c.value, c.explanation])).toEqual([
      ['32 PUB & BISTRO own by CNU TRADING', 'name line above the address of the header block on page 1'],
      ['78G, JALAN SS21/62, DAMANSARA UTAMA, 47400 PETALING JAYA', '3 address lines under the vendor name in the header block on page 1'],
    ]);
    // A number before a street's name is a lot number whose "LOT" OCR misread, not a postcode: the address goes on.
    const lotMisread = layoutDocument(tillRoll(['ISNI PETRO TRADING', '[.0T 2685 JLN GENTING KLANG', '53300 KL', 'Tel: 03-40212008', ['TOTAL', '9.90']]));
    expect(run(headerBlock, lotMisread)[1]!.value).toBe('[.0T 2685 JLN GENTING KLANG 53300 KL');
    const items = layoutDocument(tillRoll(['WATSONS PERSONAL CARE STORES SDN BHD', 'GST Reg No. 000947339264', '22241 WS CUT SCISSORS 18.00 SR', ['TOTAL', '18.00']]));
    expect(run(headerBlock, items).map((c) => c.field)).toEqual(['vendor_name']);
    // The line after the postcode is the state, not a heading that holds a label's word.
    const heading = layoutDocument(tillRoll(['PETRON TUMPAT SDN BHD', 'Lot 1626, Mukim Kampung Laut', '16200 Palekbang, Kelantan', 'PREPAY CHIT NUMBER', ['TOTAL', '9.90']]));
    expect(run(headerBlock, heading)[1]!.value).toBe('Lot 1626, Mukim Kampung Laut 16200 Palekbang, Kelantan');
    const state = layoutDocument(tillRoll(['PETRON TUMPAT SDN BHD', 'Lot 1626, Mukim Kampung Laut', '16200 Palekbang', 'KELANTAN', ['TOTAL', '9.90']]));
    expect(run(headerBlock, state)[1]!.value).toBe('Lot 1626, Mukim Kampung Laut 16200 Palekbang KELANTAN');
    // "TEL FAX" without its numbers is the letterhead's contact line, not the state after the postcode.
    const contact = layoutDocument(tillRoll(['ARTRANGE STATIONERS & PRINT SDN BHD', '44 JALAN SS21/58 DAMANSARA UTAMA', '47400 PETALING JAYA', 'TEL FAX', ['TOTAL', '9.90']]));
    expect(run(headerBlock, contact)[1]!.value).toBe('44 JALAN SS21/58 DAMANSARA UTAMA 47400 PETALING JAYA');
    // A stain read as letters and marks ends an address that has no postcode line to end it.
    const stained = layoutDocument(tillRoll(['PERNIAGAAN RIANG RIA SDN BHD', 'NO7,JLN UERO,SHAH ALAM.', 'ey et oe —_——', '27" T.5 BASIN', ['TOTAL', '9.90']]));
    expect(run(headerBlock, stained)[1]!.value).toBe('NO7,JLN UERO,SHAH ALAM.');
    // A title between the name and its address, a speck OCR read before it, is passed over; a full stop ends an address without a postcode.
    const titleSpecked = layoutDocument(tillRoll(['PERNIAGAAN RIANG RIA', '® TAX INVOICE', 'NO7,JLN UERO,SHAH ALAM.', '27" T.5 BASIN BEGAR', ['TOTAL', '9.90']]));
    expect(run(headerBlock, titleSpecked).map((c) => c.value)).toEqual(['PERNIAGAAN RIANG RIA', 'NO7,JLN UERO,SHAH ALAM.']);
    // A title with no address under it still ends the header.
    const titleOnly = layoutDocument(tillRoll(['PERNIAGAAN RIANG RIA', 'TAX INVOICE', 'CASHIER AMIN', ['TOTAL', '9.90']]));
    expect(run(headerBlock, titleOnly).map((c) => c.value)).toEqual(['PERNIAGAAN RIANG RIA']);
    // A full stop inside an address whose next line goes on with the street does not end it.
    const mall = layoutDocument(tillRoll(['TONYMOLY SDN BHD', 'UNIT L1-044B. VIVACITY MEGAMALL.', 'JALAN WAN ALWI,', '93350 KUCHING, SARAWAK.', ['TOTAL', '9.90']]));
    expect(run(headerBlock, mall)[1]!.value).toBe('UNIT L1-044B. VIVACITY MEGAMALL. JALAN WAN ALWI, 93350 KUCHING, SARAWAK.');
    // A running number stamped before the company line is neither name nor address.
    const stamped = layoutDocument(tillRoll(['#000002 BAIFU (M) Sdn Bhd', 'COMPANY NO(814198-X)', 'NO. 3, JALAN TIN', '43000 KAJANG', ['TOTAL', '9.90']]));
    expect(run(headerBlock, stamped).map((c) => c.value)).toEqual(['BAIFU (M) Sdn Bhd', 'NO. 3, JALAN TIN 43000 KAJANG']);
    // A street under a short heading ("HQ:") is the address; a branch in brackets under the postcode line is part of it.
    const headed = layoutDocument(tillRoll(['LITTLE CRAVINGS SDN BHD (562007-D)', 'HQ: 7, JLN SS21/34, 47400 PJ', 'TEL 03-77282288', ['TOTAL', '9.90']]));
    expect(run(headerBlock, headed)[1]!.value).toBe('HQ: 7, JLN SS21/34, 47400 PJ');
    const branch = layoutDocument(tillRoll(['MR D.I.Y. (JOHOR) SDN BHD', 'LOT 1851-A, JALAN KPB 6,', '43300 SERI KEMBANGAN, SELANGOR', '(MR DIY TESCO TERBAU)', 'TEL 03-77282288', ['TOTAL', '9.90']]));
    expect(run(headerBlock, branch)[1]!.value).toBe('LOT 1851-A, JALAN KPB 6, 43300 SERI KEMBANGAN, SELANGOR (MR DIY TESCO TERBAU)');
    const cashier = layoutDocument(tillRoll(['MR D.I.Y. (JOHOR) SDN BHD', 'Cashier: 7, Counter 2', 'LOT 1851-A, JALAN KPB 6,', '43300 SERI KEMBANGAN', '(TEL 03-77282288)', ['TOTAL', '9.90']]));
    expect(run(headerBlock, cashier)[1]!.value).toBe('LOT 1851-A, JALAN KPB 6, 43300 SERI KEMBANGAN');
    // A lot number is no postcode, and a remark in brackets no address line, whatever their figures.
    const lot = layoutDocument(tillRoll(['THE STORE (MALAYSIA) SDN BHD', 'WWW.TSTORE.COM.MY', 'LOT 34817 JALAN BATU AMBAR', 'TAMAN KOK LIAN', '51200 KUALA LUMPUR', 'GST REG NO: 000123456789', ['TOTAL', '9.90']]));
    expect(run(headerBlock, lot)[1]!.value).toBe('LOT 34817 JALAN BATU AMBAR TAMAN KOK LIAN 51200 KUALA LUMPUR');
    const remark = layoutDocument(tillRoll(['TONYMOLY SDN BHD', '(TONYMOLY SHOP (95874))', 'UNIT L1-044B, VIVACITY MEGAMALL,', '93350 KUCHING, SARAWAK', ['TOTAL', '9.90']]));
    expect(run(headerBlock, remark)[1]!.value).toBe('UNIT L1-044B, VIVACITY MEGAMALL, 93350 KUCHING, SARAWAK');
    const braced = layoutDocument(tillRoll(['CHECKERS HYPERMARKET SDN BHD', '{JALAN KLANG LAMA}', 'LOT 2942 & 2945, JLN SERI SENTOSA 8,', '58000 KUALA LUMPUR.', ['TOTAL', '9.90'], ['CASH', '10.00'], ['CHANGE', '0.10']]));
    // The branch in brackets under the company line is part of a receipt's name, not of its address.
    expect(run(headerBlock, braced).map((c) => c.value)).toEqual(['CHECKERS HYPERMARKET SDN BHD {JALAN KLANG LAMA}', 'LOT 2942 & 2945, JLN SERI SENTOSA 8, 58000 KUALA LUMPUR.']);
    expect(run(headerBlock, remark)[0]!.value).toBe('TONYMOLY SDN BHD');
    // A colon OCR read before the company line is a speck; a second lot number after '&' is no postcode; "CASH & CARRY" is a trade.
    const specked = layoutDocument(tillRoll([': THE TOAST F&B SDN BHD (965752-T) :', '2110&2111 JALAN PERMAS UTARA', 'BANDAR BARU PERMAS', '81750 JOHOR BAHRU JOHOR', 'Tel: 07-3886880', ['TOTAL', '9.90']]));
    expect(run(headerBlock, specked).map((c) => c.value)).toEqual(['THE TOAST F&B SDN BHD', '2110&2111 JALAN PERMAS UTARA BANDAR BARU PERMAS 81750 JOHOR BAHRU JOHOR']);
    const trade = layoutDocument(tillRoll(['SLF CASH & CARRY', 'NO 15 JLN TSJ2 SUBANG JASA,', 'OFF JLN BT 3 SUBANG,', '40000 SHAH ALAM SEL.', 'TEL 03-77342368', ['TOTAL', '9.90']]));
    expect(run(headerBlock, trade)[0]!.value).toBe('SLF CASH & CARRY');
    // A registration number in a brace OCR read for a bracket; the street line OCR lost a figure of still ends in a comma and goes on into the address.
    const continued = layoutDocument(tillRoll(['YONG TAT HARDWARE TRADING', '{JM0292487-D)', 'NO PERJIRANAN 10,', 'TAMAN AIR BIRU,', '81700 PASIR GUDANG.', 'TEL: 07-2614733', ['TOTAL', '9.90']]));
    expect(run(headerBlock, continued)[1]!.value).toBe('NO PERJIRANAN 10, TAMAN AIR BIRU, 81700 PASIR GUDANG.');
    // A row OCR could barely read is no street, whatever word it happens to end in ("LRing"): the address is under the registration number.
    const noisy = layoutDocument(tillRoll(['FIVE STAR CASH & CARRY', '1H be WH Be 2 FPL LH So LRing', '(1363663-F)', 'G.23 & G.22, Plaza Seri Setia,', 'No.1 Jalan SS 9/1, 47300 PJ, Selangor.', 'GST ID : 000416321536', ['TOTAL', '9.90']]), 'ocr');
    for (const line of page(noisy).lines) if (line.text.includes('LRing')) for (const word of line.words) word.confidence = 10;
    expect(run(headerBlock, noisy).map((c) => c.value)).toEqual(['FIVE STAR CASH & CARRY', 'G.23 & G.22, Plaza Seri Setia, No.1 Jalan SS 9/1, 47300 PJ, Selangor.']);
    // A postcode alone on the line under the street ends the address; a registration number there does not join it.
    const postcode = layoutDocument(tillRoll(['TIMES BOOKSTORES', 'LOT F21 & 22, CITTA MALL', 'NO 1, JLN PJU 1A/4', '47301', 'GST Reg No : 000423100416', ['TOTAL', '9.90']]));
    expect(run(headerBlock, postcode)[1]!.value).toBe('LOT F21 & 22, CITTA MALL NO 1, JLN PJU 1A/4 47301');
    const registration = layoutDocument(tillRoll(['TIMES BOOKSTORES', 'LOT F21 & 22, CITTA MALL', 'NO 1, JLN PJU 1A/4', '1234567-X', ['TOTAL', '9.90']]));
    expect(run(headerBlock, registration)[1]!.value).toBe('LOT F21 & 22, CITTA MALL NO 1, JLN PJU 1A/4');
    const phoneLike = layoutDocument(tillRoll(['VIVO MARKETING SDN BHD (1070687-M)', 'JALAN MANIS 4 TAMAN SEGAR 56100 KL', 'TEL: 03-91334364', ['TOTAL', '9.90']]));
    expect(run(headerBlock, phoneLike).map((c) => c.value)).toEqual(['VIVO MARKETING SDN BHD', 'JALAN MANIS 4 TAMAN SEGAR 56100 KL']);
  });

  it('ends the name at a registration number with more after it, and drops specks OCR read after a name in capitals', () => {
    const rest = layoutDocument(tillRoll(['URBAN IDEA SDN BHD (417940-M), A-G-06', 'NO. 3, JALAN TIN', '43000 KAJANG', ['TOTAL', '9.90']]));
    expect(run(headerBlock, rest)[0]!.value).toBe('URBAN IDEA SDN BHD');
    const specks = layoutDocument(tillRoll(['PRINT EXPERT SDN BHD by ol', 'NO. 3, JALAN TIN', '43000 KAJANG', ['TOTAL', '9.90']]));
    expect(run(headerBlock, specks)[0]!.value).toBe('PRINT EXPERT SDN BHD');
    const garbled = layoutDocument(tillRoll(['THE STORE (MALAYSIA) SDN BHD (B19%', 'NO. 3, JALAN TIN', '43000 KAJANG', ['TOTAL', '9.90']]));
    expect(run(headerBlock, garbled)[0]!.value).toBe('THE STORE (MALAYSIA) SDN BHD');
    const branch = layoutDocument(tillRoll(['AEON CO. (M) SDN BHD', 'NO. 3, JALAN TIN', '43000 KAJANG', ['TOTAL', '9.90']]));
    expect(run(headerBlock, branch)[0]!.value).toBe('AEON CO. (M) SDN BHD');
    const mixed = layoutDocument(tillRoll(['Banh Mi Cafe by us', 'NO. 3, JALAN TIN', '43000 KAJANG', ['TOTAL', '9.90']]));
    expect(run(headerBlock, mixed)[0]!.value).toBe('Banh Mi Cafe by us');
  });

  it('takes a company name holding a number, and starts the address under the name when OCR misread its street', () => {
    const doc = layoutDocument(tillRoll(['ZEN AND COFFEE 28 S/B', '(123456-X)', 'NEWAH 25/63 THN SRI HULA,', '40400 SHAH ALAM.', 'TEL: 03-5121 3881', ['TOTAL', '9.90']]));
    expect(run(headerBlock, doc).map((c) => c.value)).toEqual(['ZEN AND COFFEE 28 S/B', 'NEWAH 25/63 THN SRI HULA, 40400 SHAH ALAM.']);
    // A street's number after a slash is no postcode: the address goes on to the line that has one.
    const street = layoutDocument(tillRoll(['ELKEN SERVICE SDN BHD', 'No 2-1 Jalan 3/1378 Batu 5', 'Jalan Kelang Lama 58000 Kuala Lumpur', 'Tel: 603-7985 9377', ['TOTAL', '9.90']]));
    expect(run(headerBlock, street)[1]!.value).toBe('No 2-1 Jalan 3/1378 Batu 5 Jalan Kelang Lama 58000 Kuala Lumpur');
    const ampersand = layoutDocument(tillRoll(['THE COFFEE BEAN', '& TEA LEAF (M) SDN. BHD.', 'Lot F36, First Floor', '81300 Johor Bahru', ['TOTAL', '9.90']]));
    expect(run(headerBlock, ampersand)[0]!.value).toBe('THE COFFEE BEAN & TEA LEAF (M) SDN. BHD.');
    // A company line of a trade word and the legal form ends the name above it; one with a name of its own does not.
    const trade = layoutDocument(tillRoll(['WESTERN EASTERN', 'STATIONERY SDN. BHD', 'Lot F36, First Floor', '81300 Johor Bahru', ['TOTAL', '9.90']]));
    expect(run(headerBlock, trade)[0]!.value).toBe('WESTERN EASTERN STATIONERY SDN. BHD');
    const brand = layoutDocument(tillRoll(['SARANG HAE YO', 'TRENDYMAX (M) SDN. BHD.', 'Lot F36, First Floor', '81300 Johor Bahru', ['TOTAL', '9.90']]));
    expect(run(headerBlock, brand)[0]!.value).toBe('TRENDYMAX (M) SDN. BHD.');
  });
});

describe('vendorSignals', () => {
  it('names the vendor by its legal form and prominent letterhead, with the line under it as its address', () => {
    expect(run(vendorSignals, invoice)).toMatchObject([
      { field: 'vendor_name', value: 'Lieferant GmbH', explanation: "company form 'GmbH' at the top of page 1; most prominent line at the top of page 1 (no vendor label)" },
      { field: 'vendor_address', value: 'Lieferantenstraße 20 · 80333 München · Deutschland', belongsTo: 'Lieferant GmbH' },
    ]);
  });

  it('takes no street for a company, however prominent', () => {
    const street: Layout = { width: 227, height: 440, texts: [{ text: 'Jalan Lapangan Terbang Subang', x: 20, y: 30, size: 14 }, { text: 'Receipt', x: 20, y: 60 }, { text: 'Total 12.00', x: 20, y: 80 }] };
    expect(run(vendorSignals, layoutDocument(street))).toEqual([]);
  });

  it('proposes nothing without a signal', () => {
    expect(run(vendorSignals, layoutDocument(sheet(['', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', 'thank you', ['Total', '12.00']])))).toEqual([]);
  });
});

describe('unlabelledAmounts', () => {
  it('proposes every amount with cents that ends a line, weakly, and no date or percentage', () => {
    const candidates = run(unlabelledAmounts, receipt);
    expect(candidates.map((c) => c.value)).toEqual(['8.50', '17.00', '1.90', '7.60', '7.71', '15.42', '40.02', '2.40', '-0.02', '42.40', '50.00', '7.60']);
    expect(candidates.every((c) => c.field === 'amount' && c.explanation === 'amount at the end of a line on page 1')).toBe(true);
    // Weaker than any label: only the arithmetic around it can make one the total.
    const weakestLabelled = Math.min(...run(amountRows, receipt).map((c) => c.score));
    expect(Math.max(...candidates.map((c) => c.score))).toBeLessThan(weakestLabelled);
    expect(run(unlabelledAmounts, layoutDocument(sheet(['Rabatt 12,50 %', '15.03.2018', 'Artikel 4711'])))).toEqual([]);
  });
});

describe('findLineItems', () => {
  it('reads the receipt’s rows whose figures multiply out, without a header, and sums them to the subtotal', () => {
    const items = findLineItems(receipt);
    expect(items.map((i) => [i.cells.description?.value, i.cells.quantity?.value, i.cells.unit_price?.value, i.cells.amount?.value, i.source])).toEqual([
      ['NOTEBOOK A5', '2', '8.50', '17.00', 'rows'],
      ['BALLPOINT BLUE', '4', '1.90', '7.60', 'rows'],
      ['FILE FOLDER', '2', '7.71', '15.42', 'rows'],
    ]);
    expect(lineItemSum(items)).toBe(40.02);
  });

  it('reads the German item table under its header', () => {
    const items = findLineItems(invoice);
    expect(items.map((i) => [i.cells.description?.value, i.cells.quantity?.value, i.cells.unit_price?.value, i.cells.amount?.value, i.check])).toEqual([
      ['Trennblätter A4', '20', '9.90', '198.00', 'fits'],
      ['Joghurt Banane', '50', '5.50', '275.00', 'fits'],
    ]);
    expect(items[0]!.cells.amount!.column).toBe('Betrag');
    expect(lineItemSum(items)).toBe(473);
  });
});
