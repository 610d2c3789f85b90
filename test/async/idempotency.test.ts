import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { EU_INVOICE, invoicePdf, renderPage } from '../fixtures/documents.js';

interface Body {
  id: string;
  status: string;
  credits_used: number;
  request_id: string;
  error: { code: string; message: string };
}

describe.each(databases)('Idempotency-Key on POST /v1/extractions ($name)', (kind) => {
  let api: ApiServer;
  let pdf: string;

  beforeAll(async () => {
    api = await startApiServer(kind);
    pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
  });
  afterAll(async () => {
    await api?.close();
  });

  const create = (key: string, idempotencyKey: string | null, fileName = 'a.pdf') =>
    api.call('createExtraction', 'POST', '/v1/extractions', {
      key,
      body: { file: pdf, file_name: fileName },
      headers: idempotencyKey === null ? {} : { 'Idempotency-Key': idempotencyKey },
    });

  const count = async (workspaceId: string) => (await api.server.store.db('extractions').where({ workspace_id: workspaceId }).count({ n: '*' }))[0].n;

  it('replays the first answer for the same key and body: same extraction, no second one, Idempotent-Replayed', async () => {
    const { secret, workspaceId } = await api.newKey({ plan: 'pro' });
    const first = await create(secret, 'order-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create(secret, 'order-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    const [a, b] = [first.body as Body, again.body as Body];
    expect(b.id).toBe(a.id);
    expect(b.credits_used).toBe(a.credits_used);
    expect({ ...b, request_id: a.request_id }).toEqual(a);
    // The replay is its own request: its request id is its own, as in X-Request-Id.
    expect(b.request_id).not.toBe(a.request_id);
    expect(Number(await count(workspaceId))).toBe(1);
    // Without the header every request runs.
    await create(secret, null);
    expect(Number(await count(workspaceId))).toBe(2);
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const { secret, workspaceId } = await api.newKey({ plan: 'pro' });
    expect((await create(secret, 'k-2', 'a.pdf')).status).toBe(201);
    const other = await create(secret, 'k-2', 'b.pdf');
    expect(other.status).toBe(409);
    expect((other.body as Body).error.code).toBe('idempotency_key_reused');
    expect(Number(await count(workspaceId))).toBe(1);
  });

  it('keeps keys per API key: another key may use the same Idempotency-Key', async () => {
    const one = await api.newKey({ plan: 'pro' });
    const two = await api.newKey({ plan: 'pro' });
    const a = await create(one.secret, 'shared');
    const b = await create(two.secret, 'shared', 'other.pdf');
    expect(b.status).toBe(201);
    expect((b.body as Body).id).not.toBe((a.body as Body).id);
  });

  it('answers 409 idempotency_key_in_use while the first request under the key still runs', async () => {
    const { secret, keyId, workspaceId } = await api.newKey({ plan: 'pro' });
    const scan = (await renderPage(await invoicePdf(EU_INVOICE), 150)).toString('base64');
    const send = () =>
      api.call('createExtraction', 'POST', '/v1/extractions', { key: secret, body: { file: scan, file_name: 'scan.png' }, headers: { 'Idempotency-Key': 'slow' } });
    const first = send();
    // The scan is read by OCR for about a second; the second request is sent once the first holds the key.
    const claimed = () => api.server.store.db('idempotency_keys').where({ api_key_id: keyId, key: 'slow', state: 'running' }).first();
    for (let i = 0; i < 200 && !(await claimed()); i++) await new Promise((r) => setTimeout(r, 10));
    const second = await send();
    expect(second.status).toBe(409);
    expect((second.body as Body).error.code).toBe('idempotency_key_in_use');
    expect(second.headers.get('retry-after')).toBe('1');
    expect((await first).status).toBe(201);
    expect((await send()).headers.get('idempotent-replayed')).toBe('true');
    expect(Number(await count(workspaceId))).toBe(1);
  });

  it('refuses an oversized or non-ASCII key with 400 naming the header', async () => {
    const { secret } = await api.newKey({ plan: 'pro' });
    const long = await create(secret, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect((long.body as Body).error.message).toContain('header.idempotency-key');
    expect((await create(secret, 'k'.repeat(255))).status).toBe(201);
  });

  it('keeps nothing when the first request fails, so the same key can be retried', async () => {
    const { secret, workspaceId } = await api.newKey({ plan: 'pro' });
    const bad = await api.call('createExtraction', 'POST', '/v1/extractions', {
      key: secret,
      body: { file: 'R0lGODlhAQABAAAAACw=', file_name: 'picture.gif' },
      headers: { 'Idempotency-Key': 'retry-me' },
    });
    expect(bad.status).toBe(422);
    const retried = await api.call('createExtraction', 'POST', '/v1/extractions', {
      key: secret,
      body: { file: pdf, file_name: 'a.pdf' },
      headers: { 'Idempotency-Key': 'retry-me' },
    });
    expect(retried.status).toBe(201);
    expect(Number(await count(workspaceId))).toBe(1);
  });

  it('forgets a key after 24 hours', async () => {
    const { secret, keyId } = await api.newKey({ plan: 'pro' });
    const first = await create(secret, 'old');
    await api.server.store.db('idempotency_keys').where({ api_key_id: keyId, key: 'old' }).update({ created_at: Date.now() - 24 * 60 * 60_000 - 1 });
    const later = await create(secret, 'old', 'different.pdf');
    expect(later.status).toBe(201);
    expect((later.body as Body).id).not.toBe((first.body as Body).id);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });
});
