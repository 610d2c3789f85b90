import { describe, expect, it } from 'vitest';
import { extractFields } from '../../src/extraction/fields.js';
import { needsSecondReading } from '../../src/extraction/second-reading.js';
import type { FoundField } from '../../src/extraction/types.js';
import { weighReadings } from '../../src/extraction/weigh-readings.js';
import { layoutDocument, MY_RECEIPT, type Layout } from '../fixtures/documents.js';

const field = (name: string, value: string, confidence: number): FoundField => ({ field: name, value, confidence, explanation: `found ${value}` });

describe('a second OCR reading', () => {
  it('is needed when a key field is missing or in doubt, not when all three are sure', () => {
    const sure = [field('vendor_name', 'KEDAI MAJU', 80), field('invoice_date', '2018-03-15', 90), field('total_amount', '42.40', 70)];
    expect(needsSecondReading(sure)).toBe(false);
    expect(needsSecondReading(sure.slice(1))).toBe(true);
    expect(needsSecondReading([...sure.slice(0, 2), field('total_amount', '42.40', 49)])).toBe(true);
  });

  it('is not needed for a page without any key field, such as an invoice’s second page sent alone', () => {
    expect(needsSecondReading([])).toBe(false);
    expect(needsSecondReading([field('payment_terms', '30 days', 90)])).toBe(false);
  });

  it('makes a field both readings agree on surer, and one they read differently less sure', () => {
    const [vendor, total] = weighReadings([field('vendor_name', 'Kedai Maju', 60), field('total_amount', '42.40', 80)], [field('vendor_name', 'KEDAI MAJU.', 40), field('total_amount', '42.90', 85)]);
    expect(vendor).toMatchObject({ value: 'Kedai Maju', confidence: 80, explanation: 'found Kedai Maju; the second OCR reading agrees' });
    expect(total).toMatchObject({ value: '42.40', confidence: 56, explanation: "found 42.40; the second OCR reading has '42.90'" });
  });

  it('takes the second reading’s value where it is clearly surer, and the fields only it found', () => {
    const weighed = weighReadings([field('total_amount', '3.90', 58), field('payment_terms', 'cash', 80)], [field('total_amount', '35.80', 80), field('invoice_date', '2018-01-05', 40), field('payment_terms', 'card', 90)]);
    expect(weighed).toEqual([
      { field: 'total_amount', value: '35.80', confidence: 56, explanation: "found 35.80; from the second OCR reading of the page, where the first has '3.90'" },
      field('payment_terms', 'cash', 80),
      { field: 'invoice_date', value: '2018-01-05', confidence: 40, explanation: 'found 2018-01-05; from the second OCR reading of the page' },
    ]);
  });

  it('takes the second reading’s address where it kept more of it', () => {
    const [address] = weighReadings([field('vendor_address', '12 JALAN PENGACARA U1/48 TEMASYA PARK', 60)], [field('vendor_address', '12 JALAN PENGACARA U1/48 TEMASYA INDUSTRIAL PARK', 55)]);
    expect(address).toMatchObject({ value: '12 JALAN PENGACARA U1/48 TEMASYA INDUSTRIAL PARK', confidence: 39 });
    const [shorter] = weighReadings([field('vendor_address', 'LOT 34817 JALAN BATU AMBAR', 60)], [field('vendor_address', 'LOT JALAN BATU AMBAR', 65)]);
    expect(shorter).toMatchObject({ value: 'LOT 34817 JALAN BATU AMBAR', confidence: 42 });
  });

  it('completes the fields of a page from its second reading', () => {
    const receipt = layoutDocument(MY_RECEIPT, 'ocr');
    const withoutTotals: Layout = { ...MY_RECEIPT, texts: MY_RECEIPT.texts.filter((t) => t.y < 220) };
    const first = layoutDocument(withoutTotals, 'ocr');
    expect(extractFields(first).find((f) => f.field === 'total_amount')).toBeUndefined();
    const fields = extractFields({ pages: [{ ...first.pages[0]!, reread: receipt.pages[0]!.lines }] });
    const total = fields.find((f) => f.field === 'total_amount')!;
    expect(total.value).toBe('42.40');
    expect(total.explanation).toMatch(/; from the second OCR reading of the page$/);
    expect(fields.find((f) => f.field === 'vendor_name')).toMatchObject({ value: 'KEDAI BUKU MAJU SDN BHD', explanation: expect.stringMatching(/; the second OCR reading agrees$/) });
  });
});
