import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { EU_EXPECTED, EU_INVOICE, invoicePdf, renderPage } from '../fixtures/documents.js';
import { createLogger } from '../../src/logger.js';
import { startRetention } from '../../src/services/retention.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';

const OLD = 'ext_01JDQ8ZK3N4XW5V6B7C8D9E0FG';
const NEW = 'ext_01JDQ8ZK3N4XW5V6B7C8D9E0FH';

interface Extraction {
  id: string;
  data: Record<string, string>;
  line_items: Record<string, string>[];
  document?: {
    pages: { number: number; source: string; width: number; height: number; rotation: number; lines: { text: string; bbox: { x: number; y: number }; confidence: number }[] }[];
  } | null;
}

describe('RETENTION_DAYS', () => {
  it('makes a starting server delete the extractions past the period', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-retention-'));
    const env = { PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'docex.sqlite')}`, LOG_LEVEL: 'silent', OCR_WORKERS: '1' };
    try {
      const first = await startServer(loadConfig(env));
      const ws = await first.store.workspaces.create({ name: 'old', plan: 'free' });
      const make = async (id: string) => {
        await first.store.extractions.create({ id, workspace_id: ws.id, file_name: 'a.pdf', file_type: 'application/pdf', template_id: null, source: 'api', request_id: null }, null);
        await first.store.extractions.finish(id, { status: 'failed', error_code: 'no_text_found', error_message: 'x', pages: 1, credits_used: 1 });
      };
      await make(OLD);
      await make(NEW);
      await first.store.db('extractions').where({ id: OLD }).update({ created_at: new Date(Date.now() - 3 * 86_400_000).toISOString() });
      await first.close();

      const second = await startServer(loadConfig({ ...env, RETENTION_DAYS: '2' }));
      try {
        for (let i = 0; i < 100 && (await second.store.extractions.get(ws.id, OLD)); i += 1) await new Promise((r) => setTimeout(r, 50));
        expect(await second.store.extractions.get(ws.id, OLD)).toBeUndefined();
        expect(await second.store.extractions.get(ws.id, NEW)).toBeDefined();
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(databases)('extraction data on $name', (kind) => {
  let api: ApiServer;
  let key: string;
  let pdf: string;

  beforeAll(async () => {
    api = await startApiServer(kind, { env: { KEEP_UPLOADS: 'true' } });
    key = (await api.newKey({ plan: 'business' })).secret;
    pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
  });
  afterAll(async () => {
    await api?.close();
  });

  const create = async (query = '') => (await api.call('createExtraction', 'POST', `/v1/extractions${query}`, { key, body: { file: pdf, file_name: 'eu.pdf' } })).body as Extraction;
  const rows = async (table: string, column: string, id: string) => Number((await api.server.store.db(table).where(column, id).count({ n: '*' }))[0]!.n);

  it('returns line items as rows besides the flat data', async () => {
    const ext = await create();
    expect(ext.line_items).toEqual([
      { description: 'Consulting services', quantity: '10', unit_price: '100.00', amount: '1000.00' },
      { description: 'Hosting', quantity: '1', unit_price: '234.50', amount: '234.50' },
    ]);
    for (const [n, row] of ext.line_items.entries()) for (const [column, value] of Object.entries(row)) expect(ext.data[`line_items.${n}.${column}`]).toBe(value);
    expect(ext.data.total_amount).toBe(EU_EXPECTED.total_amount);
  });

  it('returns the text it read only with include=document, on create and on GET', async () => {
    const ext = await create('?include=document');
    const page = ext.document!.pages[0]!;
    expect(ext.document!.pages).toHaveLength(1);
    // pdfkit's A4 page in PDF points, upright.
    expect(page).toMatchObject({ number: 1, source: 'text_layer', rotation: 0 });
    expect(page.width).toBeCloseTo(595.28, 1);
    expect(page.height).toBeCloseTo(841.89, 1);
    const vendor = page.lines.find((l) => l.text === 'ACME Supplies GmbH')!;
    expect(vendor.confidence).toBe(100);
    expect(vendor.bbox.x).toBeCloseTo(50 / 595.28, 2);
    expect(page.lines.some((l) => l.text.includes('INV-2026-0042'))).toBe(true);

    const plain = (await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}`, { key })).body as Extraction;
    expect(plain).not.toHaveProperty('document');
    const created = await create();
    expect(created).not.toHaveProperty('document');
    const fetched = (await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}?include=document`, { key })).body as Extraction;
    expect(fetched.document).toEqual(ext.document);
    const bad = await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}?include=pages`, { key });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { message: string } }).error.message).toContain('query.include');
  });

  it('answers include=document with null when no text was read', async () => {
    const blank = (await api.call('createExtraction', 'POST', '/v1/extractions?include=document', { key, body: { file: Buffer.from('%PDF-1.4\n%%EOF').toString('base64'), file_name: 'broken.pdf' } })).body as Extraction & { status: string };
    expect(blank.status).toBe('failed');
    expect(blank.document).toBeNull();
  });

  it('deletes an extraction with its fields, document text and upload; a later GET is 404; deleting again is 204', async () => {
    const ext = await create('?include=document');
    expect(await rows('extraction_documents', 'extraction_id', ext.id)).toBe(1);
    const upload = await api.server.store.db('extractions').where({ id: ext.id }).first('upload');
    expect(upload.upload).not.toBeNull();

    const reader = (await api.newKey({ plan: 'business', scopes: ['extractions:read'] })).secret;
    expect((await api.call('deleteExtraction', 'DELETE', `/v1/extractions/${ext.id}`, { key: reader })).status).toBe(403);
    const stranger = (await api.newKey({ plan: 'business' })).secret;
    expect((await api.call('deleteExtraction', 'DELETE', `/v1/extractions/${ext.id}`, { key: stranger })).status).toBe(204);
    expect((await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}`, { key })).status).toBe(200);

    const deleted = await api.call('deleteExtraction', 'DELETE', `/v1/extractions/${ext.id}`, { key });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe('');
    expect((await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}`, { key })).status).toBe(404);
    expect((await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}?include=document`, { key })).status).toBe(404);
    expect(await rows('extractions', 'id', ext.id)).toBe(0);
    expect(await rows('extraction_documents', 'extraction_id', ext.id)).toBe(0);
    const list = (await api.call('listExtractions', 'GET', '/v1/extractions?limit=100', { key })).body as { data: { id: string }[] };
    expect(list.data.map((e) => e.id)).not.toContain(ext.id);
    expect((await api.call('deleteExtraction', 'DELETE', `/v1/extractions/${ext.id}`, { key })).status).toBe(204);
    expect((await api.call('deleteExtraction', 'DELETE', '/v1/extractions/ext_malformed', { key })).status).toBe(400);
  });

  it('answers a create whose extraction is deleted while it is processing with 404, keeping nothing', async () => {
    const scan = (await renderPage(await invoicePdf(EU_INVOICE), 200)).toString('base64');
    const own = (await api.newKey({ plan: 'business' })).secret;
    const pending = api.call('createExtraction', 'POST', '/v1/extractions?include=document', { key: own, body: { file: scan, file_name: 'scan.png' } });
    let id: string | undefined;
    for (let i = 0; i < 200 && !id; i += 1) {
      const list = (await api.call('listExtractions', 'GET', '/v1/extractions', { key: own })).body as { data: { id: string; status: string }[] };
      id = list.data.find((e) => e.status === 'processing')?.id;
    }
    expect(id).toBeDefined();
    expect((await api.call('deleteExtraction', 'DELETE', `/v1/extractions/${id}`, { key: own })).status).toBe(204);
    const res = await pending;
    expect(res.status).toBe(404);
    expect((res.body as { error: { message: string } }).error.message).toBe(`The extraction ${id} was deleted while it was processing.`);
    expect(await rows('extractions', 'id', id!)).toBe(0);
    expect(await rows('extraction_documents', 'extraction_id', id!)).toBe(0);
  });

  it('deletes extractions past the retention period, with their document text, and keeps the newer ones', async () => {
    const own = (await api.newKey({ plan: 'business' })).secret;
    const make = async () => ((await api.call('createExtraction', 'POST', '/v1/extractions', { key: own, body: { file: pdf, file_name: 'eu.pdf' } })).body as Extraction).id;
    const old = [await make(), await make()];
    const recent = await make();
    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await api.server.store.db('extractions').whereIn('id', old).update({ created_at: longAgo });

    const retention = startRetention(api.server.store.extractions, 30, createLogger('silent'));
    await retention.sweep();
    await retention.stop();
    for (const id of old) {
      expect((await api.call('getExtraction', 'GET', `/v1/extractions/${id}`, { key: own })).status).toBe(404);
      expect(await rows('extraction_documents', 'extraction_id', id)).toBe(0);
    }
    expect((await api.call('getExtraction', 'GET', `/v1/extractions/${recent}`, { key: own })).status).toBe(200);
    expect(await rows('extraction_documents', 'extraction_id', recent)).toBe(1);
  });
});
