import { describe, expect, it } from 'vitest';
import { extractFields } from '../../src/extraction/fields.js';
import { fieldsForLabel, isDocumentTitle, withoutTrailingTitle } from '../../src/extraction/labels.js';
import { union, wordsToLines } from '../../src/extraction/layout.js';
import type { DocumentText, Line, PageText, Word } from '../../src/extraction/types.js';

const CHAR = 0.008;
const HEIGHT = 0.012;

/** Words of `text` laid out from (x, y) as a proportional font would, one space a character wide. */
function run(text: string, x: number, y: number, height = HEIGHT): Word[] {
  const words: Word[] = [];
  let cursor = x;
  for (const token of text.split(' ')) {
    words.push({ text: token, confidence: 100, bbox: { x: cursor, y, width: token.length * CHAR, height } });
    cursor += (token.length + 1) * CHAR;
  }
  return words;
}

function page(number: number, ...runs: Word[][]): PageText {
  return { number, source: 'text_layer', lines: wordsToLines(runs.flat()) };
}

const field = (doc: DocumentText, name: string) => extractFields(doc).find((f) => f.field === name);

describe('generic vendor name', () => {
  it('takes the legal name from the footer when it completes the heading, and skips the customer', () => {
    const doc = {
      pages: [
        page(
          1,
          run('Northwind Traders Invoice', 0.1, 0.05, 0.025),
          run('Bill to:', 0.1, 0.2),
          run('Contoso Ltd', 0.1, 0.215),
          run('Total: 120.00 GBP', 0.6, 0.5),
          run('Northwind Traders Ltd · 1 Main Street · London', 0.1, 0.93),
        ),
      ],
    };
    expect(field(doc, 'vendor_name')).toMatchObject({
      value: 'Northwind Traders Ltd',
      confidence: 75,
      explanation: "company form 'Ltd' in the footer of page 1; most prominent line at the top of page 1 (no vendor label)",
      page: 1,
    });
  });

  it('prefers the name the web domain spells to a taller line, and ignores mailbox providers', () => {
    const doc = {
      pages: [
        page(
          1,
          run('Handmade furniture', 0.6, 0.04, 0.02),
          run('Rivera Interiors', 0.1, 0.06),
          run('Gmail Fans', 0.1, 0.3),
          run('Total: 80.00 EUR', 0.6, 0.5),
          run('rivera.interiors@gmail.com www.rivera-interiors.com', 0.1, 0.95),
        ),
      ],
    };
    expect(field(doc, 'vendor_name')).toMatchObject({ value: 'Rivera Interiors', confidence: 75, explanation: 'matches the domain rivera-interiors.com (no vendor label)' });
  });

  it('names the holder of the account to pay into when the top of the page is the recipient window', () => {
    const doc = {
      pages: [
        page(1, run('Jane Smith', 0.6, 0.12), run('12 High Street', 0.6, 0.135), run('Total: 56.02 EUR', 0.6, 0.5), run('Bank Popular - Account holder: Blue Harbour - IBAN GB82 WEST 1234 5698 7654 32', 0.1, 0.7)),
      ],
    };
    expect(field(doc, 'vendor_name')).toMatchObject({ value: 'Blue Harbour', confidence: 70, explanation: "named as 'Account holder' on page 1 (no vendor label)" });
  });

  it('finds nothing rather than a delivery block, a title or a table header', () => {
    const doc = {
      pages: [
        page(
          1,
          run('Delivery address', 0.6, 0.15),
          run('Strategic Corp', 0.6, 0.165),
          run('Kopie factuur', 0.1, 0.3, 0.018),
          run('Article', 0.1, 0.35),
          run('Total: 49.99 EUR', 0.6, 0.5),
        ),
      ],
    };
    expect(field(doc, 'vendor_name')).toBeUndefined();
  });

  it('takes neither a spaced-out title read letter by letter nor a bold column heading for the name', () => {
    const doc = {
      pages: [
        page(
          1,
          run('Sammy Maystone', 0.08, 0.033),
          run('N V', 0.76, 0.035, 0.03),
          run('E', 0.91, 0.035, 0.03),
          run('Date: Jan 1, 2022', 0.7, 0.14),
          run('Bill To:', 0.08, 0.16),
          run('Taylor Riddel', 0.08, 0.18),
          run('Item', 0.07, 0.33, 0.016),
          run('Unit Price', 0.6, 0.33, 0.016),
          run('Total: 127.50 USD', 0.6, 0.5),
        ),
      ],
    };
    expect(field(doc, 'vendor_name')).toMatchObject({ value: 'Sammy Maystone', explanation: 'most prominent line at the top of page 1 (no vendor label)' });
  });

  it('reads a name apart from the street printed under it when both were joined into one line', () => {
    const words = [...run('Coolblue', 0.75, 0.057), ...run('Weena 664', 0.75, 0.074), ...run('B.V.', 0.82, 0.057)];
    const joined: Line = { text: words.map((w) => w.text).join(' '), row: 0, words, bbox: union(words.map((w) => w.bbox)), confidence: 100 };
    const rest = page(1, run('Total: 717.97 EUR', 0.6, 0.5)).lines.map((l) => ({ ...l, row: 1 }));
    const doc = { pages: [{ number: 1, source: 'text_layer' as const, lines: [joined, ...rest] }] };
    expect(field(doc, 'vendor_name')).toMatchObject({ value: 'Coolblue B.V.', explanation: "company form 'B.V.' at the top of page 1; most prominent line at the top of page 1 (no vendor label)" });
  });

  it('names a brand in a logo by the one legal name that begins with it', () => {
    const doc = {
      pages: [
        page(1, run('amazon', 0.06, 0.04, 0.03), run('visit aws.amazon.com/contact-us/', 0.42, 0.1), run('Total: $4.11', 0.6, 0.3), run('Amazon Web Services, Inc.', 0.7, 0.84)),
      ],
    };
    expect(field(doc, 'vendor_name')).toMatchObject({
      value: 'Amazon Web Services, Inc.',
      explanation:
        "matches the domain aws.amazon.com; company form 'Inc.' in the footer of page 1; begins with the name in the domain aws.amazon.com; and 1 more mention (no vendor label)",
    });
  });

  it('keeps the words of a skewed scanned name together', () => {
    const words = run('Muster Handels Gesellschaft GmbH', 0.1, 0.05).map((w, i) => ({ ...w, confidence: 90, bbox: { ...w.bbox, y: w.bbox.y + i * 0.004 } }));
    const skewed: Line = { text: words.map((w) => w.text).join(' '), row: 0, words, bbox: union(words.map((w) => w.bbox)), confidence: 90 };
    const doc = { pages: [{ number: 1, source: 'ocr' as const, lines: [skewed] }] };
    const vendor = field(doc, 'vendor_name')!;
    expect(vendor.value).toBe('Muster Handels Gesellschaft GmbH');
    // Two finders agree (the company form at the top, the header block's company line), which raises the confidence above either alone.
    expect(vendor.explanation).toContain('also company line of the header block');
    expect(vendor.confidence).toBeGreaterThan(Math.round(75 * 0.9));
  });

  it('does not take a parenthesised remark under a vendor label for the name', () => {
    const doc = {
      pages: [
        page(
          1,
          run('Total: $4.11', 0.6, 0.3),
          run('Service Provider:', 0.7, 0.82),
          run('(Not to be used for payment remittance)', 0.7, 0.832),
          run('Acme Cloud Services, Inc.', 0.7, 0.844),
          run('410 Terry Ave North', 0.7, 0.856),
        ),
      ],
    };
    expect(field(doc, 'vendor_name')).toMatchObject({
      value: 'Acme Cloud Services, Inc.',
      explanation: "first name under the label 'Service Provider' on page 1, 1 line that is not a name skipped; also company form 'Inc.' in the footer of page 1",
    });
    expect(field(doc, 'vendor_address')?.value).toBe('410 Terry Ave North');
  });

  it('knows issuer and seller labels in several languages', () => {
    expect(fieldsForLabel('Issuer')[0]?.field).toBe('vendor_name');
    expect(fieldsForLabel('Sprzedawca')[0]?.field).toBe('vendor_name');
    expect(fieldsForLabel('Factuuradres')[0]?.field).toBe('customer_name');
    const doc = { pages: [page(1, run('Issuer: Basic Test', 0.1, 0.1), run('Total: 1.00 EUR', 0.1, 0.12))] };
    expect(field(doc, 'vendor_name')).toMatchObject({ value: 'Basic Test', explanation: "label 'Issuer' on page 1, value to the right" });
  });
});

describe('generic invoice number', () => {
  it('reads the number beside the document title when no label names it', () => {
    const doc = { pages: [page(1, run('Invoice INV/2023/03/0008', 0.1, 0.25, 0.024), run('Total: 279.84 USD', 0.6, 0.5))] };
    expect(field(doc, 'invoice_number')).toMatchObject({ value: 'INV/2023/03/0008', confidence: 75, explanation: "number beside the document title 'Invoice' on page 1 (no number label)" });
  });

  it('reads a number glued to its n° mark after the title', () => {
    const doc = { pages: [page(1, run('Facture n°562044387 du 02 Juillet 2015', 0.1, 0.38))] };
    expect(field(doc, 'invoice_number')?.value).toBe('562044387');
  });

  it('reads the number under a title used as a column header, past a label beside it', () => {
    const doc = { pages: [page(1, run('Klant', 0.07, 0.334), run('Factuur', 0.73, 0.334), run('Vervaldatum', 0.84, 0.334), run('SCONL03', 0.07, 0.35), run('VF1005193039', 0.69, 0.35), run('22-9-2022', 0.86, 0.35))] };
    expect(field(doc, 'invoice_number')).toMatchObject({ value: 'VF1005193039', confidence: 70, explanation: "number below the document title 'Factuur' on page 1 (no number label)" });
  });

  it('keeps a labelled number over one beside the title, and reads no number from words after a title', () => {
    const labelled = { pages: [page(1, run('INVOICE', 0.7, 0.03, 0.03), run('# 77', 0.7, 0.07), run('Invoice No.: A-1', 0.1, 0.2))] };
    expect(field(labelled, 'invoice_number')?.value).toBe('A-1');
    const none = { pages: [page(1, run('Invoice Summary', 0.4, 0.1), run('Invoice for the period July 1 - July 31, 2014', 0.1, 0.3))] };
    expect(field(none, 'invoice_number')).toBeUndefined();
  });
});

describe('document titles', () => {
  it('knows a title alone from a title that starts a phrase, and cuts one off the end of a name', () => {
    expect(isDocumentTitle('FACTUUR.')).toBe(true);
    expect(isDocumentTitle('Tax Invoice')).toBe(true);
    expect(isDocumentTitle('PAYMENT RECEIPT')).toBe(true);
    expect(isDocumentTitle('Invoice Summary')).toBe(false);
    expect(withoutTrailingTitle('Amazon Web Services Invoice')).toBe('Amazon Web Services');
    expect(withoutTrailingTitle('Billing Partners')).toBe('Billing Partners');
  });
});
