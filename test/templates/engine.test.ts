import type { TemplateBody } from '../../src/templates/shorthand.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CANONICAL_FIELDS } from '../../src/extraction/labels.js';
import { describe, expect, it } from 'vitest';
import type { components } from '../../generated/openapi.js';
import type { FoundField } from '../../src/extraction/types.js';
import { applyTemplate, matchesTemplate, mergeFields, selectTemplate } from '../../src/templates/engine.js';
import { convertInvoice2data, parseInvoice2data } from '../../src/templates/invoice2data.js';
import { templateText } from '../../src/templates/text.js';
import { documentFromText } from '../../scripts/eval/text-document.js';

type Template = components['schemas']['Template'];
type TemplateCreate = TemplateBody;

const CUSTOM = path.resolve(import.meta.dirname, '../fixtures/invoice2data/custom');

function fixture(name: string) {
  const template = convertInvoice2data(parseInvoice2data(readFileSync(path.join(CUSTOM, 'templates', `${name}.yml`), 'utf8')), `${name}.yml`).template!;
  const doc = documentFromText(readFileSync(path.join(CUSTOM, `${name}.txt`), 'utf8'));
  const fields = applyTemplate(template, doc);
  return { template, doc, fields, data: Object.fromEntries(fields.map((f) => [f.field, f.value])) };
}

describe('applyTemplate on the invoice2data custom fixtures', () => {
  it('basic: regex fields typed and normalised', () => {
    const { data, fields, template, doc } = fixture('basic');
    expect(matchesTemplate(template, templateText(doc).text)).toBe(true);
    expect(data).toMatchObject({ invoice_date: '2022-09-27', invoice_number: '0999/09/2022', total_amount: '123.45', vendor_name: 'Basic Test' });
    const total = fields.find((f) => f.field === 'total_amount')!;
    expect(total.explanation).toBe("template 'Basic Test' rule 'total_amount' (regex 1 of 1) on page 1");
    expect(total.confidence).toBe(97);
    expect(total.page).toBe(1);
    expect(total.bbox!.width).toBeGreaterThan(0);
  });

  it('lines-basic: lines fields become <field>.N.<group>, typed', () => {
    const { data } = fixture('lines-basic');
    expect(data).toMatchObject({
      'simple_lines.0.number': 'One',
      'simple_lines.2.number': 'Three',
      'column_lines.0.pos': '1',
      'column_lines.1.name': 'Tomato',
      'column_lines.1.qty': '0.50',
      'column_lines.2.unit': '',
    });
  });

  it('lines-blocks: every block between start and end, a field named lines as line_items', () => {
    const { data } = fixture('lines-blocks');
    const names = Object.keys(data).filter((k) => k.endsWith('.name'));
    expect(names.map((k) => data[k])).toEqual(['Cat', 'Dog', 'Frog', 'Lizard', 'Unicorn']);
    expect(data['line_items.4.pos']).toBe('5');
  });

  it('lines-multiple-patterns: each line takes the first pattern that matches', () => {
    const { data } = fixture('lines-multiple-patterns');
    expect(data).toMatchObject({ 'line_items.0.group': 'Mammals', 'line_items.1.name': 'Hedgehog', 'line_items.4.subgroup': 'Flying', 'line_items.10.name': 'Ostrich' });
  });

  it('table-groups: each column of a table a field, its values reduced by the group, typed', () => {
    const { data, fields } = fixture('table-groups');
    expect(data).toMatchObject({ qty_rooms: '2', date_check_out: '2024-12-31', random_num_to_sum: '11.01', hotel_details: 'OYO 4189 Resort Nanganallur' });
    expect(fields.find((f) => f.field === 'qty_rooms')!.explanation).toBe("template 'Table Groups Tests' rule 'qty_rooms' (table column 'qty_rooms', sum of 2 matches) on page 1");
  });

  it('table-groups: a template naming no language reads numeric dates month first, as dateparser does, whatever the other dates', () => {
    const { data } = fixture('table-groups');
    expect(data.date_check_in).toBe('2024-01-08');
  });

  it('fills unece_code of line_items and tax_lines rows from a known uom, keeping a code the template read', () => {
    const rows = 'Items\nChair 2 units\nOil 1 l LTR\nSand 3 bags\nEnd';
    const line = '^(?P<name>\\w+) (?P<qty>\\d+) (?P<uom>\\w+)(?: (?P<unece_code>[A-Z]{3}))?$';
    const template: TemplateCreate = { name: 'U', keywords: ['Items'], fields: { lines: { parser: 'lines', start: 'Items', end: 'End', line }, other: { parser: 'lines', start: 'Items', end: 'End', line } } };
    const data = Object.fromEntries(applyTemplate(template, documentFromText(rows)).map((f) => [f.field, f.value]));
    expect(data).toMatchObject({ 'line_items.0.unece_code': 'H87', 'line_items.1.unece_code': 'LTR', 'other.0.unece_code': '' });
    expect(data['line_items.2.unece_code']).toBe('');
  });

  it('lines-multiple-patterns: rows of further rules follow those of the first, each rule with its own columns', () => {
    const { data } = fixture('lines-multiple-patterns');
    expect(data).toMatchObject({ 'dimensions.2.angle': '90', 'dimensions.2.length': '60', 'dimensions.3.pos': '4', 'dimensions.3.length': '80', 'dimensions.4.angle': '180' });
    expect(data['dimensions.5.pos']).toBeUndefined();
  });
});

const doc = documentFromText(
  ['ACME Corporation          Invoice', 'Invoice No.: A-17', 'Date  03.02.2026', 'Amount due', '1.234,50', 'Fee 2,00', 'Fee 3,50'].join('\n'),
);

describe('engine semantics', () => {
  const base: TemplateCreate = { name: 'ACME', keywords: ['ACME'], fields: {}, options: { decimal_separator: ',', date_formats: ['%d.%m.%Y'], currency: 'EUR' } };
  const run = (fields: TemplateCreate['fields'], options = base.options) => Object.fromEntries(applyTemplate({ ...base, fields, options }, doc).map((f) => [f.field, f.value]));

  it('groups repeated matches', () => {
    const fee = { parser: 'regex' as const, regex: 'Fee ([\\d,]+)', type: 'amount' as const };
    expect(run({ fee: { ...fee, group: 'sum' } }).fee).toBe('5.50');
    expect(run({ fee: { ...fee, group: 'last' } }).fee).toBe('3.50');
    expect(run({ fee: { ...fee, group: 'max' } }).fee).toBe('3.50');
    expect(run({ fee }).fee).toBe('2.00');
  });

  it('reads labels to the right and below, and dates with strftime formats', () => {
    const data = run({
      invoice_number: { parser: 'label', label: 'Invoice No.' },
      total_amount: { parser: 'label', label: 'Amount due', direction: 'below', type: 'amount' },
      invoice_date: { parser: 'regex', regex: 'Date\\s+(\\S+)', type: 'date' },
    });
    expect(data).toMatchObject({ invoice_number: 'A-17', total_amount: '1234.50', invoice_date: '2026-02-03', currency: 'EUR' });
  });

  it('prepares the text as the options say before matching', () => {
    expect(run({ name: { parser: 'regex', regex: '(acmecorporation)' } }, { remove_whitespace: true, lowercase: true }).name).toBe('acmecorporation');
    expect(run({ no: { parser: 'regex', regex: 'No\\.: (\\S+)' } }, { replace: [['A-(\\d+)', 'B-\\1']] }).no).toBe('B-17');
  });

  it('says when a required field is missing', () => {
    const fields = applyTemplate({ ...base, fields: { invoice_number: { parser: 'regex', regex: 'No\\.: (\\S+)' }, po: { parser: 'regex', regex: 'PO (\\d+)' } } }, doc);
    expect(fields[0]!.explanation).toMatch(/template incomplete, not found: po$/);
  });

  it('matches keywords as regexes and honours exclude_keywords', () => {
    const text = templateText(doc).text;
    expect(matchesTemplate({ ...base, keywords: ['ACME', 'Invoice\\s+No'] }, text)).toBe(true);
    expect(matchesTemplate({ ...base, keywords: ['ACME'], exclude_keywords: ['Fee'] }, text)).toBe(false);
    expect(matchesTemplate({ ...base, keywords: ['ACME', 'Credit note'] }, text)).toBe(false);
  });
});

describe('canonical fields take their generic form by default', () => {
  const invoice = documentFromText(
    [
      'ACME GmbH  Rechnung',
      'Rechnungsnummer:   RE  2026 / 17',
      'Datum: 03.02.2026   Fällig: 5. März 2026',
      'Bestellung:  PO 88',
      'Netto 5.001,03  MwSt 950,20  Gesamt 5.951,23 €',
      'Lieferant:  ACME   GmbH',
      'Adresse:  Hauptstr. 1,   10115 Berlin',
      'Kunde:  Globex   AG',
      'IBAN: de89 3704 0044 0532 0130 00',
      'USt-IdNr.: de 123 456 789',
      'E-Mail: <billing@acme.example>',
      'Tel.:  +49 30   1234567',
    ].join('\n'),
  );
  const rules: Record<string, string> = {
    invoice_number: 'Rechnungsnummer:\\s+(.+)',
    invoice_date: 'Datum: (\\S+)',
    due_date: 'Fällig: (\\d+\\. \\w+ \\d{4})',
    purchase_order: 'Bestellung:\\s+(.+)',
    subtotal: 'Netto ([\\d.,]+)',
    tax_amount: 'MwSt ([\\d.,]+)',
    total_amount: 'Gesamt ([\\d.,]+)',
    currency: 'Gesamt [\\d.,]+ (\\S+)',
    vendor_name: 'Lieferant:\\s+(.+)',
    vendor_address: 'Adresse:\\s+(.+)',
    customer_name: 'Kunde:\\s+(.+)',
    iban: 'IBAN: (.+)',
    vendor_tax_id: 'USt-IdNr\\.: (.+)',
    email: 'E-Mail: (.+)',
    phone: 'Tel\\.:\\s+(.+)',
  };
  const expected: Record<string, string> = {
    invoice_number: 'RE 2026 / 17',
    invoice_date: '2026-02-03',
    due_date: '2026-03-05',
    purchase_order: 'PO 88',
    subtotal: '5001.03',
    tax_amount: '950.20',
    total_amount: '5951.23',
    currency: 'EUR',
    vendor_name: 'ACME GmbH',
    vendor_address: 'Hauptstr. 1, 10115 Berlin',
    customer_name: 'Globex AG',
    iban: 'DE89370400440532013000',
    vendor_tax_id: 'DE123456789',
    email: 'billing@acme.example',
    phone: '+49 30 1234567',
  };
  const apply = (fields: TemplateCreate['fields']) =>
    Object.fromEntries(applyTemplate({ name: 'ACME', keywords: ['ACME'], fields, options: { decimal_separator: ',', languages: ['de'] } }, invoice).map((f) => [f.field, f.value]));

  it('covers every canonical field', () => {
    expect(Object.keys(rules).sort()).toEqual([...CANONICAL_FIELDS].sort());
  });

  it.each(Object.keys(rules))('%s', (name) => {
    expect(apply({ [name]: { parser: 'regex', regex: rules[name]! } })[name]).toBe(expected[name]);
  });

  it('lets an explicit type win over the canonical form', () => {
    expect(apply({ total_amount: { parser: 'regex', regex: rules.total_amount!, type: 'string' } }).total_amount).toBe('5.951,23');
    expect(apply({ iban: { parser: 'regex', regex: rules.iban!, type: 'string' } }).iban).toBe('de89 3704 0044 0532 0130 00');
  });

  it('reads static values and other fields by name too', () => {
    expect(apply({ currency: { parser: 'static', value: '€' }, total_amount: { parser: 'static', value: '1.234,50' } })).toMatchObject({ currency: 'EUR', total_amount: '1234.50' });
    expect(apply({ reference: { parser: 'regex', regex: 'Netto ([\\d.,]+)' } }).reference).toBe('5.001,03');
  });
});

describe('selectTemplate and mergeFields', () => {
  const t = (id: string, priority: number, builtIn: boolean, created: string, keyword = 'ACME'): Template => ({
    id, object: 'template', name: id, description: '', keywords: [keyword], exclude_keywords: [], priority, fields: {}, options: {},
    built_in: builtIn, workspace_id: builtIn ? null : 'ws_x', created_at: created, updated_at: created,
  });

  it('prefers priority, then the workspace own templates, then the newest', () => {
    const older = t('tpl_a', 5, false, '2026-01-01T00:00:00.000Z');
    const newer = t('tpl_b', 5, false, '2026-02-01T00:00:00.000Z');
    const builtin = t('tpl_builtin_c', 5, true, '2026-03-01T00:00:00.000Z');
    const urgent = t('tpl_builtin_d', 9, true, '2025-01-01T00:00:00.000Z');
    expect(selectTemplate([older, builtin, newer])?.id).toBe('tpl_b');
    expect(selectTemplate([older, builtin, newer, urgent])?.id).toBe('tpl_builtin_d');
    expect(selectTemplate([older, builtin])?.id).toBe('tpl_a');
    expect(selectTemplate([])).toBeUndefined();
  });

  it('filters by keywords when given the text', () => {
    const other = t('tpl_e', 50, false, '2026-01-01T00:00:00.000Z', 'Globex');
    const acme = t('tpl_f', 1, false, '2026-01-01T00:00:00.000Z');
    expect(selectTemplate([other, acme], 'ACME Corporation')?.id).toBe('tpl_f');
    expect(selectTemplate([other], 'ACME Corporation')).toBeUndefined();
  });

  it('lets template fields win by name and generic ones fill the rest', () => {
    const f = (field: string, value: string): FoundField => ({ field, value, confidence: 90, explanation: '' });
    const merged = mergeFields([f('total_amount', '10.00')], [f('total_amount', '9.00'), f('currency', 'EUR')]);
    expect(merged.map((m) => [m.field, m.value])).toEqual([['total_amount', '10.00'], ['currency', 'EUR']]);
  });
});
