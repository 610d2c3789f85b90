import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { EU_EXPECTED, EU_INVOICE, invoicePdf, renderPage } from '../fixtures/documents.js';
import { openStore } from '../../src/store/index.js';
import { newId } from '../../src/ids.js';
import { startServerProcess } from '../scale/processes.js';

interface Extraction {
  id: string;
  status: string;
  confidence: number | null;
  credits_used: number;
  data: Record<string, string>;
  error_code: string | null;
  error_message: string | null;
}

const ASYNC = { Prefer: 'respond-async' };

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, tries = 300, ms = 100): Promise<T> {
  let value = await probe();
  for (let i = 0; i < tries && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    value = await probe();
  }
  return value;
}

describe.each(databases)('Prefer: respond-async ($name)', (kind) => {
  let api: ApiServer;
  let pdf: string;
  let scan: string;
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    api = await startApiServer(kind, { env: { QUEUE_POLL_MS: '50' } });
    ({ secret: key, workspaceId } = await api.newKey({ plan: 'business' }));
    const invoice = await invoicePdf(EU_INVOICE);
    pdf = invoice.toString('base64');
    scan = (await renderPage(invoice, 150)).toString('base64');
  });
  afterAll(async () => {
    await api?.close();
  });

  const get = async (id: string) => (await api.call('getExtraction', 'GET', `/v1/extractions/${id}`, { key })).body as Extraction;

  it('answers 202 at once with the extraction processing, Location and Preference-Applied; GET shows it complete', async () => {
    const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: scan, file_name: 'scan.png' }, headers: ASYNC });
    expect(res.status).toBe(202);
    const queued = res.body as Extraction;
    expect(queued).toMatchObject({ status: 'processing', confidence: null, credits_used: 0 });
    expect(res.headers.get('location')).toBe(`/v1/extractions/${queued.id}`);
    expect(res.headers.get('preference-applied')).toBe('respond-async');
    const done = await until(() => get(queued.id), (e) => e.status !== 'processing');
    expect(done.status).toBe('completed');
    expect(done.credits_used).toBe(1);
    expect(done.data.invoice_number).toBe(EU_EXPECTED.invoice_number);
    // The job is gone once its extraction is finished.
    expect(await api.server.store.db('extraction_jobs').where({ extraction_id: queued.id }).first()).toBeUndefined();
  });

  it('gives the same result as a synchronous request, and leaves requests without the preference synchronous', async () => {
    const sync = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: pdf, file_name: 'a.pdf' }, headers: { Prefer: 'return=representation' } });
    expect(sync.status).toBe(201);
    expect(sync.headers.get('preference-applied')).toBeNull();
    const queued = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: pdf, file_name: 'a.pdf' }, headers: { Prefer: 'return=minimal, respond-async; wait=5' } });
    expect(queued.status).toBe(202);
    const done = await until(() => get((queued.body as Extraction).id), (e) => e.status !== 'processing');
    expect(done.data).toEqual((sync.body as Extraction).data);
  });

  it('answers bad input at once with its 4xx, queueing nothing', async () => {
    const before = await api.server.store.db('extractions').count({ n: '*' });
    const gif = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: 'R0lGODlhAQABAAAAACw=', file_name: 'picture.gif' }, headers: ASYNC });
    expect(gif.status).toBe(422);
    const template = await api.call('createExtraction', 'POST', '/v1/extractions', {
      key,
      body: { file: pdf, file_name: 'a.pdf', template_id: 'tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0' },
      headers: ASYNC,
    });
    expect(template.status).toBe(400);
    expect(await api.server.store.db('extractions').count({ n: '*' })).toEqual(before);
  });

  it('stores an unreadable document as failed, like a synchronous request', async () => {
    const broken = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF').toString('base64');
    const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: broken, file_name: 'broken.pdf' }, headers: ASYNC });
    expect(res.status).toBe(202);
    const done = await until(() => get((res.body as Extraction).id), (e) => e.status !== 'processing');
    expect(done.status).toBe('failed');
    expect(done.error_code).toBe('unreadable_document');
  });

  it('replays an Idempotency-Key under respond-async as the first 202', async () => {
    const send = () => api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: pdf, file_name: 'i.pdf' }, headers: { ...ASYNC, 'Idempotency-Key': 'async-1' } });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.headers.get('preference-applied')).toBe('respond-async');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((again.body as Extraction).id).toBe((first.body as Extraction).id);
  });

  it('takes up a job whose worker is gone, and fails one whose workers stopped under it too often', async () => {
    const { store } = api.server;
    const orphan = async (attempts: number) => {
      const id = newId('ext');
      await store.extractions.create({ id, workspace_id: workspaceId, file_name: 'a.pdf', file_type: 'application/pdf', template_id: null, source: 'api', request_id: null }, null);
      await store.db('extraction_jobs').insert({
        extraction_id: id,
        workspace_id: workspaceId,
        file: Buffer.from(pdf, 'base64'),
        content_type: 'application/pdf',
        template_id: null,
        attempts,
        claimed_by: 'inst_gone',
        available_at: 0,
        created_at: 0,
      });
      return id;
    };
    const resumed = await orphan(1);
    const exhausted = await orphan(3);
    // The running server's queue finds them on its next poll: their holder has no heartbeat.
    const a = await until(() => get(resumed), (e) => e.status !== 'processing');
    expect(a.status).toBe('completed');
    const b = await until(() => get(exhausted), (e) => e.status !== 'processing');
    expect(b).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    expect(b.error_message).toContain('interrupted 3 times');
  });
});

describe('a restart resumes queued work (SQLite, a killed process)', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-resume-'));
  });
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('completes an extraction whose server was SIGKILLed while it was processing', async () => {
    const databaseUrl = `sqlite:${path.join(dir, 'docex.sqlite')}`;
    const store = await openStore(databaseUrl);
    // Polled ten times a second until the second server has read it: the plan's 60 requests a
    // minute would answer 429 whenever reading takes longer than six seconds (a server run from its
    // sources compiles the pipeline in its own thread before it reads anything).
    const ws = await store.workspaces.create({ name: 'w', plan: 'pro', per_minute: 100_000, per_day: 1_000_000 });
    const { secret } = await store.apiKeys.create({ workspace_id: ws.id, name: 'k', scopes: ['extractions:read', 'extractions:write'] });
    const scan = (await renderPage(await invoicePdf(EU_INVOICE), 150)).toString('base64');
    const first = await startServerProcess({ DATABASE_URL: databaseUrl, QUEUE_POLL_MS: '50' });
    const headers = { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', Prefer: 'respond-async' };
    const res = await fetch(`${first.url}/v1/extractions`, { method: 'POST', headers, body: JSON.stringify({ file: scan, file_name: 'scan.png' }) });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as Extraction;
    // Killed once a worker holds the job, so that the extraction is mid-way, not merely queued.
    await until(() => store.db('extraction_jobs').where({ extraction_id: id }).first(), (job) => Boolean(job?.claimed_by), 200, 10);
    first.child.kill('SIGKILL');
    await first.exited;
    expect((await store.extractions.get(ws.id, id))!.status).toBe('processing');

    const second = await startServerProcess({ DATABASE_URL: databaseUrl, QUEUE_POLL_MS: '50' });
    try {
      const read = () => fetch(`${second.url}/v1/extractions/${id}`, { headers }).then((r) => r.json() as Promise<Extraction>);
      const done = await until(read, (e) => e.status !== 'processing');
      expect(done.status).toBe('completed');
      expect(done.data.invoice_number).toBe(EU_EXPECTED.invoice_number);
    } finally {
      await second.stop();
      await store.close();
    }
    // Two server processes start one after the other (each compiles its sources with tsx).
  }, 180_000);
});
