import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinTemplates, loadBuiltinTemplates, templateSlug } from '../../src/templates/builtin.js';
import { docexFieldName } from '../../src/templates/field-names.js';
import { convertInvoice2data, parseInvoice2data } from '../../src/templates/invoice2data.js';
import { validateTemplate } from '../../src/templates/validate.js';

const LIBRARY = path.resolve(import.meta.dirname, '../fixtures/invoice2data/templates');
const convert = (file: string) => convertInvoice2data(parseInvoice2data(readFileSync(path.join(LIBRARY, file), 'utf8')), path.basename(file));

describe('convertInvoice2data', () => {
  it('converts legacy fields, static_ fields and top-level lines (Amazon Web Services)', () => {
    const { template, dropped } = convert('com/com.amazon.aws.yml');
    expect(dropped).toEqual([]);
    expect(template).toMatchObject({
      name: 'Amazon Web Services',
      keywords: ['Amazon Web Services', '$', 'Invoice'],
      fields: {
        total_amount: { parser: 'regex', regex: 'TOTAL AMOUNT DUE ON.*\\$(\\d+\\.\\d+)', type: 'amount', group: 'first' },
        invoice_date: { parser: 'regex', type: 'date', group: 'first' },
        subtotal: { parser: 'regex', required: false },
        vendor_name: { parser: 'regex', regex: '(Amazon Web Services, Inc\\.)' },
        partner_website: { parser: 'static', value: 'aws.amazon.com' },
        line_items: { parser: 'lines', start: 'Detail', first_line: '^    (?P<name>\\w+.*)\\$(?P<price_unit>\\d+\\.\\d+)' },
      },
      options: { currency: 'USD', date_formats: ['%B %d, %Y'], decimal_separator: '.', languages: ['en'] },
    });
    expect(() => validateTemplate(template!)).not.toThrow();
  });

  it('wraps a pattern without groups, maps types and fills invoice2data defaults (QualityHosting)', () => {
    const { template } = convert('de/de.qualityhosting.yml');
    expect(template!.fields.vendor_tax_id).toMatchObject({ parser: 'regex', regex: '(DE 232 446 240)' });
    expect(template!.fields.line_items!.types).toEqual({ qty: 'amount', price: 'amount' });
    expect(template!.fields.vendor_name).toEqual({ parser: 'static', value: 'QualityHosting AG', required: false });
    expect(template!.options).toMatchObject({ currency: 'EUR', decimal_separator: ',' });
  });

  it('keeps every lines rule, and only the types of groups the rule has, as invoice2data types only those (Coolblue)', () => {
    const { template, dropped } = convert('nl/nl.be.coolblue.yml');
    expect(dropped.filter((d) => d.includes('lines'))).toEqual([]);
    const lines = template!.fields.line_items!;
    expect(lines.types).toEqual({ qty: 'integer', price_unit: 'amount', line_tax_percent: 'integer', price_subtotal: 'amount' });
    expect(lines.rules).toHaveLength(1);
    expect(lines.rules![0]!.types).toEqual({ qty: 'integer', line_tax_percent: 'integer', price_subtotal: 'amount' });
    expect(() => validateTemplate(template!)).not.toThrow();
  });

  it('turns each named group of a table body into a table field, typed as invoice2data types it (OYO)', () => {
    const { template, dropped } = convert('com/com.oyo.invoice.yml');
    expect(template!.fields.date_check_in).toMatchObject({ parser: 'table', start: 'Hotel Details\\s+Check In\\s+Check Out\\s+Rooms', end: 'Booking ID', column: 'date_check_in', type: 'date' });
    expect(template!.fields.amount_rooms).toMatchObject({ parser: 'table', column: 'amount_rooms', type: 'amount', required: false });
    expect(template!.fields.gstin).toMatchObject({ parser: 'table', column: 'gstin' });
    // This body's (?:\w+ ?)* can backtrack exponentially, so its columns are left out.
    expect(dropped).toEqual([expect.stringMatching(/^tables\[1\]: body: regular expression may backtrack catastrophically/)]);
    expect(() => validateTemplate(template!)).not.toThrow();
  });

  it('reports what it leaves out', () => {
    const { template, dropped } = convert('nl/nl.goos.yml');
    expect(template).not.toBeNull();
    expect(dropped).toContain('fields.amount_tax: a pattern has 2 capture groups, which invoice2data ignores the field for');
  });

  it('refuses what is not a template', () => {
    expect(convertInvoice2data('text', 'x.yml').error).toBe('not a mapping');
    expect(convertInvoice2data({ fields: {} }, 'x.yml').error).toBe('no keywords');
  });

  it('maps invoice2data field names in one place', () => {
    expect(['amount', 'date', 'date_due', 'amount_untaxed', 'amount_tax', 'issuer', 'vat', 'po_number', 'partnerCoc'].map(docexFieldName)).toEqual([
      'total_amount', 'invoice_date', 'due_date', 'subtotal', 'tax_amount', 'vendor_name', 'vendor_tax_id', 'purchase_order', 'partner_coc',
    ]);
  });
});

describe('built-in templates', () => {
  it('loads the shipped templates as read-only Template objects', () => {
    const templates = builtinTemplates();
    expect(templates.length).toBeGreaterThanOrEqual(10);
    for (const t of templates) {
      expect(t.id).toMatch(/^tpl_builtin_[a-z0-9_]{1,60}$/);
      expect(t).toMatchObject({ object: 'template', built_in: true, workspace_id: null });
      expect(() => validateTemplate(t)).not.toThrow();
    }
    expect(templates.map((t) => t.id)).toContain('tpl_builtin_com_amazon_aws');
  });

  it('refuses a broken data file at load time', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'builtin-'));
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ name: 'x', keywords: ['('], fields: { a: { parser: 'static', value: '1' } } }));
    expect(() => loadBuiltinTemplates(dir)).toThrow(/keywords\[0\]: invalid regular expression/);
  });

  it('derives ids from file names', () => {
    expect(templateSlug('com.amazon.aws.yml')).toBe('com_amazon_aws');
    expect(templateSlug('nl.accor.rhine.opco hotels.json')).toBe('nl_accor_rhine_opco_hotels');
  });
});
