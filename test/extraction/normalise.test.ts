import { describe, expect, it } from 'vitest';
import { currencyOf, dateOrderOf, ibanValid, parseAmount, parseCompactDate, parseDate, snakeCase } from '../../src/extraction/normalise.js';

describe('parseCompactDate', () => {
  it('reads eight figures as a year, a month and a day, as tills print them', () => {
    expect(parseCompactDate(': 20180428/191204')).toEqual({ value: '2018-04-28', matched: '20180428', ambiguous: false });
    expect(parseCompactDate('19991231')!.value).toBe('1999-12-31');
  });

  it('reads no date where the figures make none, or there are more of them', () => {
    expect(parseCompactDate('20181328')).toBeNull();
    expect(parseCompactDate('20180230')).toBeNull();
    expect(parseCompactDate('12345678')).toBeNull();
    expect(parseCompactDate('2018042801')).toBeNull();
    expect(parseDate('20180428')).toBeNull();
  });
});

describe('parseDate', () => {
  it.each([
    ['2026-03-15', '2026-03-15'],
    ['2026/3/5', '2026-03-05'],
    ['15.03.2026', '2026-03-15'],
    ['15.03.26', '2026-03-15'],
    ['03/15/2026', '2026-03-15'],
    ['15/03/2026', '2026-03-15'],
    ['15-03-2026', '2026-03-15'],
    ['15 March 2026', '2026-03-15'],
    ['15th March, 2026', '2026-03-15'],
    ['March 15, 2026', '2026-03-15'],
    ['August 3 , 2014', '2014-08-03'],
    ['Mar 15 2026', '2026-03-15'],
    ['Mar. 15, 2026', '2026-03-15'],
    ['15-Mar-2026', '2026-03-15'],
    ['15. März 2026', '2026-03-15'],
    ['1er mars 2026', '2026-03-01'],
    ['15 de marzo 2026', null],
    ['Issued on 5 Dec 2025 by us', '2025-12-05'],
  ])('reads %s as %s', (text, expected) => {
    expect(parseDate(text)?.value ?? null).toBe(expected);
  });

  it('reads ambiguous slashed dates day-first unless the document is month-first', () => {
    expect(parseDate('04/05/2026')).toEqual({ value: '2026-05-04', matched: '04/05/2026', ambiguous: true });
    expect(parseDate('04/05/2026', 'month-first')?.value).toBe('2026-04-05');
    expect(parseDate('13/05/2026', 'month-first')).toEqual({ value: '2026-05-13', matched: '13/05/2026', ambiguous: false });
    expect(parseDate('05/13/2026', 'day-first')?.value).toBe('2026-05-13');
  });

  it('reads the leftmost date, so that a till’s time of day after it is no second date', () => {
    expect(parseDate('07/04/2018 ~ 18.10.59')).toEqual({ value: '2018-04-07', matched: '07/04/2018', ambiguous: true });
    expect(parseDate('18.10.59 07/04/2018')?.value).toBe('2059-10-18');
  });

  it('refuses impossible dates', () => {
    expect(parseDate('31.02.2026')).toBeNull();
    expect(parseDate('2026-13-01')).toBeNull();
    expect(parseDate('INV-2026-0042')).toBeNull();
  });

  it('decides the document date order from evidence, then US cues, else day-first', () => {
    expect(dateOrderOf('Date 25/03/2026 Due 04/05/2026')).toBe('day-first');
    expect(dateOrderOf('Date 03/25/2026 Due 04/05/2026')).toBe('month-first');
    expect(dateOrderOf('Date: March 3, 2026 Due 04/05/2026')).toBe('month-first');
    expect(dateOrderOf('Total $1,234.50 Due 04/05/2026')).toBe('month-first');
    expect(dateOrderOf('Total 1.234,50 € Due 04/05/2026')).toBe('day-first');
    expect(dateOrderOf('Due 04/05/2026')).toBe('day-first');
    // A dollar sign OCR read before a registration number is no US amount.
    expect(dateOrderOf('$000022185 06/03/2018')).toBe('day-first');
  });
});

describe('parseAmount', () => {
  it.each([
    ['1.234,50', '1234.50'],
    ['1,234.50', '1234.50'],
    ['1 234,50', '1234.50'],
    ['1\u00a0234,50', '1234.50'],
    ["1'234.50", '1234.50'],
    ['1234.5', '1234.50'],
    ['1234', '1234.00'],
    ['1,234', '1234.00'],
    ['1.234.567,89', '1234567.89'],
    ['€1,234.50', '1234.50'],
    ['1.469,06 EUR', '1469.06'],
    ['USD 99.99', '99.99'],
    ['$ 0.5', '0.50'],
    ['-12,00', '-12.00'],
    ['(12.00)', '-12.00'],
    ['19% 234,56', '234.56'],
    ['12.345', '12345.00'],
    ['0.125', '125.00'],
    ['9.999', '9999.00'],
    ['2.005', '2005.00'],
    ['10.005,5', '10005.50'],
    ['1.2345', '1.23'],
  ])('reads %s as %s', (text, expected) => {
    expect(parseAmount(text)?.value).toBe(expected);
  });

  it('keeps the currency written with the amount', () => {
    expect(parseAmount('1.469,06 EUR')?.currency).toBe('EUR');
    expect(parseAmount('£12.00')?.currency).toBe('GBP');
    expect(parseAmount('12.00')?.currency).toBeNull();
    expect(parseAmount('no digits')).toBeNull();
  });
});

describe('currencyOf', () => {
  it.each([
    ['€ 12', 'EUR'],
    ['12 EUR', 'EUR'],
    ['$12', 'USD'],
    ['US$ 12', 'USD'],
    ['CA$ 12', 'CAD'],
    ['A$12', 'AUD'],
    ['£12', 'GBP'],
    ['¥1200', 'JPY'],
    ['₹ 1,200', 'INR'],
    ['Discount of Rs -40.00', 'INR'],
    ['Rs in cash', null],
    ['CHF 12.50', 'CHF'],
    ['12,50 zł', 'PLN'],
    ['VAT 19% PDF', null],
    ['12.00', null],
  ])('%s -> %s', (text, code) => {
    expect(currencyOf(text)).toBe(code);
  });
});

describe('ibanValid and snakeCase', () => {
  it('checks IBANs by mod 97', () => {
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('DE88 3704 0044 0532 0130 00')).toBe(false);
    expect(ibanValid('not an iban')).toBe(false);
  });

  it('names other fields after their labels', () => {
    expect(snakeCase('Payment terms')).toBe('payment_terms');
    expect(snakeCase('Bank Ref. No.')).toBe('bank_ref_no');
    expect(snakeCase('Kunden-Nr.')).toBe('kunden_nr');
    expect(snakeCase('Lieferschein #')).toBe('lieferschein_number');
    expect(snakeCase('Straße')).toBe('strasse');
  });
});
