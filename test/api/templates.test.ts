import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { DE_INVOICE, EU_EXPECTED, EU_INVOICE, invoicePdf, layoutPdf } from '../fixtures/documents.js';
import { ciiXml, DE_E_INVOICE } from '../fixtures/einvoice.js';

interface Field {
  field: string;
  value: string;
  explanation: string;
}

const ACME = {
  name: 'ACME Supplies',
  keywords: ['ACME Supplies GmbH'],
  fields: {
    purchase_order: { parser: 'regex', regex: 'PO Number:\\s*(PO-\\d+)' },
    vendor_name: { parser: 'static', value: 'ACME Supplies GmbH (template)' },
    total_amount: { parser: 'label', label: 'Total:', direction: 'right', type: 'amount' },
  },
  options: { decimal_separator: ',' },
};

describe.each(databases)('templates on $name', (kind) => {
  let api: ApiServer;
  let key: string;
  let pdf: string;

  beforeAll(async () => {
    api = await startApiServer(kind);
    key = (await api.newKey({ plan: 'business' })).secret;
    pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
  });
  afterAll(async () => {
    await api?.close();
  });

  const message = (res: { body: unknown }) => (res.body as { error: { message: string } }).error.message;

  it('creates, reads, updates, lists and deletes a template', async () => {
    const created = await api.call('createTemplate', 'POST', '/v1/templates', { key, body: ACME });
    expect(created.status).toBe(201);
    const tpl = created.body as { id: string; built_in: boolean; priority: number; exclude_keywords: string[] };
    expect(tpl.id).toMatch(/^tpl_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.headers.get('location')).toBe(`/v1/templates/${tpl.id}`);
    expect(tpl).toMatchObject({ built_in: false, priority: 5, exclude_keywords: [] });
    const updated = await api.call('updateTemplate', 'PATCH', `/v1/templates/${tpl.id}`, { key, body: { priority: 9 } });
    expect(updated.body).toMatchObject({ id: tpl.id, priority: 9, name: ACME.name });
    const list = (await api.call('listTemplates', 'GET', '/v1/templates?limit=100', { key })).body as { data: { id: string; built_in: boolean }[] };
    expect(list.data[0].id).toBe(tpl.id);
    expect(list.data.filter((t) => t.built_in).length).toBeGreaterThan(0);
    expect((await api.call('deleteTemplate', 'DELETE', `/v1/templates/${tpl.id}`, { key })).status).toBe(204);
    expect((await api.call('getTemplate', 'GET', `/v1/templates/${tpl.id}`, { key })).status).toBe(404);
  });

  it('shows built-in templates to every workspace and refuses to change them', async () => {
    const other = (await api.newKey({ plan: 'business' })).secret;
    const builtin = ((await api.call('listTemplates', 'GET', '/v1/templates?limit=100', { key: other })).body as { data: { id: string; built_in: boolean; workspace_id: string | null }[] }).data.find((t) => t.built_in)!;
    expect(builtin.id).toMatch(/^tpl_builtin_/);
    expect(builtin.workspace_id).toBeNull();
    expect((await api.call('getTemplate', 'GET', `/v1/templates/${builtin.id}`, { key })).status).toBe(200);
    expect((await api.call('updateTemplate', 'PATCH', `/v1/templates/${builtin.id}`, { key, body: { name: 'mine' } })).status).toBe(404);
    expect((await api.call('deleteTemplate', 'DELETE', `/v1/templates/${builtin.id}`, { key })).status).toBe(404);
  });

  it('refuses broken, unsafe and malformed rules, naming the member', async () => {
    const cases: [unknown, string][] = [
      [{ ...ACME, fields: { total_amount: { parser: 'regex', regex: 'Total: (\\d+' } } }, 'fields.total_amount.regex'],
      [{ ...ACME, fields: { total_amount: { parser: 'regex', regex: '(a+)+$' } } }, 'fields.total_amount.regex'],
      [{ ...ACME, fields: { total_amount: { parser: 'regex', regex: 'Total: \\d+' } } }, 'fields.total_amount.regex'],
      [{ ...ACME, fields: { total_amount: { parser: 'regex', regex: 'x', type: 'money' } } }, 'body.fields.total_amount.type'],
      [{ ...ACME, keywords: ['([a-z]*)*$'] }, 'keywords[0]'],
      [{ ...ACME, fields: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, { parser: 'static', value: 'x' }])) }, 'body.fields'],
    ];
    for (const [body, member] of cases) {
      const res = await api.call('createTemplate', 'POST', '/v1/templates', { key, body });
      expect(res.status, member).toBe(400);
      expect(message(res)).toContain(member);
    }
  });

  it('lets template fields win when template_id is given, and says which rule matched', async () => {
    const tpl = (await api.call('createTemplate', 'POST', '/v1/templates', { key, body: { ...ACME, keywords: ['no such text anywhere'] } })).body as { id: string };
    const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: pdf, file_name: 'a.pdf', template_id: tpl.id } });
    const ext = res.body as { template_id: string; data: Record<string, string>; fields: Field[] };
    expect(ext.template_id).toBe(tpl.id);
    expect(ext.data.vendor_name).toBe('ACME Supplies GmbH (template)');
    expect(ext.data.purchase_order).toBe('PO-7781');
    expect(ext.data.total_amount).toBe(EU_EXPECTED.total_amount);
    expect(ext.data.invoice_number).toBe(EU_EXPECTED.invoice_number);
    expect(ext.fields.find((f) => f.field === 'purchase_order')!.explanation).toContain(`template '${ACME.name}' rule 'purchase_order'`);
    expect(ext.fields.find((f) => f.field === 'invoice_number')!.explanation).not.toContain('template');
    const unknown = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: pdf, file_name: 'a.pdf', template_id: 'tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0' } });
    expect(unknown.status).toBe(400);
    expect(message(unknown)).toContain('body.template_id');
  });

  it('auto-matches a workspace template by its keywords and reports it in template_id', async () => {
    const own = (await api.newKey({ plan: 'business' })).secret;
    const plain = (await api.call('createExtraction', 'POST', '/v1/extractions', { key: own, body: { file: pdf, file_name: 'a.pdf' } })).body as { template_id: string | null };
    expect(plain.template_id).toBeNull();
    const tpl = (await api.call('createTemplate', 'POST', '/v1/templates', { key: own, body: ACME })).body as { id: string };
    const matched = (await api.call('createExtraction', 'POST', '/v1/extractions', { key: own, body: { file: pdf, file_name: 'a.pdf' } })).body as { template_id: string; data: Record<string, string> };
    expect(matched.template_id).toBe(tpl.id);
    expect(matched.data.vendor_name).toBe('ACME Supplies GmbH (template)');
  });

  it("takes invoice2data's bare-regex shorthand, stores it written out and reads canonical fields as generic extraction does", async () => {
    const body = {
      name: 'ACME shorthand',
      keywords: ['no such text anywhere'],
      fields: { total_amount: 'Total:\\s*([\\d.,]+)', invoice_date: ['Nothing here (\\d+)', 'Invoice date:\\s*(\\S+)'], reference: 'PO Number:\\s*(\\S+)' },
      options: { decimal_separator: ',' },
    };
    const created = await api.call('createTemplate', 'POST', '/v1/templates', { key, body });
    expect(created.status).toBe(201);
    expect((created.body as { fields: unknown }).fields).toEqual({
      total_amount: { parser: 'regex', regex: body.fields.total_amount },
      invoice_date: { parser: 'regex', regex: body.fields.invoice_date },
      reference: { parser: 'regex', regex: body.fields.reference },
    });
    const id = (created.body as { id: string }).id;
    const ext = (await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: pdf, file_name: 'a.pdf', template_id: id } })).body as { data: Record<string, string>; fields: Field[] };
    // "1.469,06 EUR" with decimal_separator ',': the template's total reads as the generic one does.
    expect(ext.data.total_amount).toBe(EU_EXPECTED.total_amount);
    expect(ext.fields.find((f) => f.field === 'total_amount')!.explanation).toContain("rule 'total_amount'");
    expect(ext.data.invoice_date).toBe(EU_EXPECTED.invoice_date);
    expect(ext.data.reference).toBe('PO-7781');
    const patched = await api.call('updateTemplate', 'PATCH', `/v1/templates/${id}`, { key, body: { fields: { invoice_number: 'Invoice No\\.:\\s*(\\S+)' } } });
    expect((patched.body as { fields: unknown }).fields).toEqual({ invoice_number: { parser: 'regex', regex: 'Invoice No\\.:\\s*(\\S+)' } });
    const refused = await api.call('createTemplate', 'POST', '/v1/templates', { key, body: { ...body, fields: { total_amount: 'Total: \\d+' } } });
    expect(refused.status).toBe(400);
    expect(message(refused)).toContain('fields.total_amount.regex');
    const wrong = await api.call('createTemplate', 'POST', '/v1/templates', { key, body: { ...body, fields: { total_amount: 42 } } });
    expect(wrong.status).toBe(400);
    expect(message(wrong)).toContain('body.fields.total_amount');
  });

  it('lets a matching template decide on an e-invoice, the attached XML filling in the rest', async () => {
    const own = (await api.newKey({ plan: 'business' })).secret;
    const body = { name: 'Lieferant', keywords: ['Lieferant GmbH'], fields: { vendor_name: { parser: 'static', value: 'Lieferant (template)' } } };
    const tpl = (await api.call('createTemplate', 'POST', '/v1/templates', { key: own, body })).body as { id: string };
    const hybrid = await layoutPdf(DE_INVOICE, [{ name: 'factur-x.xml', content: Buffer.from(ciiXml(DE_E_INVOICE)) }]);
    const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key: own, body: { file: hybrid.toString('base64'), file_name: 'rechnung.pdf' } });
    const ext = res.body as { template_id: string; data: Record<string, string>; fields: Field[]; e_invoice: { status: string } };
    expect(ext.template_id).toBe(tpl.id);
    expect(ext.data.vendor_name).toBe('Lieferant (template)');
    expect(ext.fields.find((f) => f.field === 'total_amount')!.explanation).toMatch(/^Factur-X XML, BT-112/);
    expect(ext.e_invoice.status).toBe('read');
  });
});
