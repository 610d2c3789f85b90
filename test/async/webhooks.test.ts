import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { EU_INVOICE, invoicePdf } from '../fixtures/documents.js';
import { verifyWebhookSignature, WebhookSignatureError } from '../../src/client/index.js';
import { startReceiver, type Receiver } from './receiver.js';

interface Created {
  id: string;
  secret: string;
  url: string;
  events: string[];
}
interface Delivery {
  status: string;
  event_type: string;
  attempts: { status_code: number | null; error: string | null }[];
}

async function until<T>(probe: () => Promise<T> | T, done: (value: T) => boolean, tries = 200, ms = 50): Promise<T> {
  let value = await probe();
  for (let i = 0; i < tries && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    value = await probe();
  }
  return value;
}

const ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_RETRY_WINDOW_MS: '1500',
  WEBHOOK_TIMEOUT_MS: '500',
  QUEUE_POLL_MS: '50',
};

describe.each(databases)('webhooks ($name)', (kind) => {
  let api: ApiServer;
  let key: string;
  let pdf: string;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    api = await startApiServer(kind, { env: ENV });
    key = (await api.newKey({ plan: 'business', scopes: ['extractions:read', 'extractions:write', 'webhooks:read', 'webhooks:write'] })).secret;
    pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
  });
  afterAll(async () => {
    await api?.close();
    for (const r of receivers) await r.close();
  });

  const receiver = async (answer?: Parameters<typeof startReceiver>[0]) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
  const subscribe = async (url: string, events = ['extraction.completed', 'extraction.failed'], k = key) =>
    api.call('createWebhook', 'POST', '/v1/webhooks', { key: k, body: { url, events } });
  const extract = (headers: Record<string, string> = {}, file = pdf) =>
    api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file, file_name: 'a.pdf' }, headers });
  const deliveries = async (id: string) => ((await api.call('listWebhookDeliveries', 'GET', `/v1/webhooks/${id}/deliveries`, { key })).body as { data: Delivery[] }).data;

  it('shows the secret once, lists webhooks without it, and needs the webhooks scopes', async () => {
    const r = await receiver();
    const created = await subscribe(`${r.url}/hook`);
    expect(created.status).toBe(201);
    const body = created.body as Created;
    expect(body.id).toMatch(/^wh_/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get('location')).toBe(`/v1/webhooks/${body.id}`);
    const list = await api.call('listWebhooks', 'GET', '/v1/webhooks', { key });
    expect(JSON.stringify(list.body)).not.toContain(body.secret);
    expect((list.body as { data: Created[] }).data.map((w) => w.id)).toContain(body.id);
    const readOnly = (await api.newKey({ plan: 'pro', scopes: ['webhooks:read'] })).secret;
    expect((await subscribe(`${r.url}/x`, undefined, readOnly)).status).toBe(403);
    expect((await api.call('listWebhooks', 'GET', '/v1/webhooks', { key: readOnly })).status).toBe(200);
    expect((await api.call('deleteWebhook', 'DELETE', `/v1/webhooks/${body.id}`, { key })).status).toBe(204);
    expect((await api.call('deleteWebhook', 'DELETE', `/v1/webhooks/${body.id}`, { key })).status).toBe(404);
  });

  it('refuses URLs that are not http(s), carry credentials or are malformed, and unknown or missing events', async () => {
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'not a url', 'http://user:pw@127.0.0.1/x']) {
      const res = await subscribe(url);
      expect(res.status, url).toBe(400);
      expect((res.body as { error: { message: string } }).error.message).toContain('body.url');
    }
    expect((await subscribe('http://127.0.0.1/x', ['extraction.deleted'])).status).toBe(400);
    expect((await subscribe('http://127.0.0.1/x', [])).status).toBe(400);
  });

  it('delivers extraction.completed for async and sync extractions with a valid Stripe-style signature', async () => {
    const r = await receiver();
    const { id, secret } = (await subscribe(`${r.url}/done`, ['extraction.completed'])).body as Created;
    const queued = (await extract({ Prefer: 'respond-async' })).body as { id: string };
    const sync = (await extract()).body as { id: string };
    await until(() => r.received.length, (n) => n >= 2);
    expect(r.received).toHaveLength(2);
    const events = r.received.map((d) => verifyWebhookSignature(d.body, d.signature, secret));
    expect(events.map((e) => e.data.extraction.id).sort()).toEqual([queued.id, sync.id].sort());
    for (const e of events) {
      expect(e.id).toMatch(/^evt_/);
      expect(e.type).toBe('extraction.completed');
      expect(e.data.extraction.status).toBe('completed');
    }
    expect(() => verifyWebhookSignature(r.received[0].body, r.received[0].signature, 'whsec_wrong')).toThrow(WebhookSignatureError);
    expect(() => verifyWebhookSignature(`${r.received[0].body} `, r.received[0].signature, secret)).toThrow(WebhookSignatureError);
    expect(() => verifyWebhookSignature(r.received[0].body, r.received[0].signature, secret, { now: Date.now() + 600_000 })).toThrow(/old/);
    const recorded = await until(() => deliveries(id), (d) => d.every((x) => x.status === 'succeeded'));
    expect(recorded).toHaveLength(2);
    expect(recorded[0].attempts).toMatchObject([{ status_code: 200, error: null }]);
    await api.call('deleteWebhook', 'DELETE', `/v1/webhooks/${id}`, { key });
  });

  it('retries a receiver that answers 500, hangs or redirects, with backoff, then gives up; extractions are not slowed', async () => {
    const failing = await receiver(() => 500);
    const hanging = await receiver(() => 'hang');
    const redirecting = await receiver(() => 302);
    const hooks = await Promise.all([failing, hanging, redirecting].map(async (r) => ((await subscribe(`${r.url}/h`, ['extraction.completed'])).body as Created).id));
    const res = await extract();
    expect(res.status).toBe(201);
    // The extraction was answered without waiting for any receiver: the hanging one's first attempt
    // (WEBHOOK_TIMEOUT_MS) has not ended yet.
    expect((await deliveries(hooks[1]))[0].attempts).toEqual([]);
    const final = await Promise.all(hooks.map((id) => until(() => deliveries(id), (d) => d[0]?.status === 'failed', 200, 50)));
    const [fail, hang, redirect] = final.map((d) => d[0]);
    for (const d of [fail, hang, redirect]) {
      expect(d.status).toBe('failed');
      // Backoff of 100, 200, 400, 800 ms inside a 1.5 s window: a bounded number of attempts.
      expect(d.attempts.length).toBeGreaterThanOrEqual(2);
      expect(d.attempts.length).toBeLessThanOrEqual(5);
    }
    expect(fail.attempts[0]).toMatchObject({ status_code: 500 });
    expect(hang.attempts[0].status_code).toBeNull();
    expect(hang.attempts[0].error).toContain('no answer within 500 ms');
    expect(redirect.attempts[0]).toMatchObject({ status_code: 302 });
    expect(redirect.attempts[0].error).toContain('not followed');
    expect(redirecting.received.every((d) => d.path === '/h')).toBe(true);
    for (const id of hooks) await api.call('deleteWebhook', 'DELETE', `/v1/webhooks/${id}`, { key });
  });

  it('sends extraction.failed only to webhooks that listen to it', async () => {
    const failedOnly = await receiver();
    const completedOnly = await receiver();
    const a = ((await subscribe(`${failedOnly.url}/f`, ['extraction.failed'])).body as Created).id;
    const b = ((await subscribe(`${completedOnly.url}/c`, ['extraction.completed'])).body as Created).id;
    const broken = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF').toString('base64');
    const res = await extract({ Prefer: 'respond-async' }, broken);
    await until(() => failedOnly.received.length, (n) => n >= 1);
    const event = JSON.parse(failedOnly.received[0].body) as { type: string; data: { extraction: { id: string; status: string; error_code: string } } };
    expect(event.type).toBe('extraction.failed');
    expect(event.data.extraction).toMatchObject({ id: (res.body as { id: string }).id, status: 'failed', error_code: 'unreadable_document' });
    expect(completedOnly.received).toEqual([]);
    for (const id of [a, b]) await api.call('deleteWebhook', 'DELETE', `/v1/webhooks/${id}`, { key });
  });

  it('replays a webhook creation sent again with the same Idempotency-Key', async () => {
    const r = await receiver();
    const send = () => api.call('createWebhook', 'POST', '/v1/webhooks', { key, body: { url: `${r.url}/i`, events: ['extraction.completed'] }, headers: { 'Idempotency-Key': 'wh-once' } });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((again.body as Created).id).toBe((first.body as Created).id);
    const list = (await api.call('listWebhooks', 'GET', '/v1/webhooks?limit=100', { key })).body as { data: Created[] };
    expect(list.data.filter((w) => w.url === `${r.url}/i`)).toHaveLength(1);
    await api.call('deleteWebhook', 'DELETE', `/v1/webhooks/${(first.body as Created).id}`, { key });
  });

  it('answers 404 for another workspace’s webhook', async () => {
    const r = await receiver();
    const { id } = (await subscribe(`${r.url}/x`)).body as Created;
    const other = (await api.newKey({ plan: 'pro', scopes: ['webhooks:read', 'webhooks:write'] })).secret;
    expect((await api.call('listWebhookDeliveries', 'GET', `/v1/webhooks/${id}/deliveries`, { key: other })).status).toBe(404);
    expect((await api.call('deleteWebhook', 'DELETE', `/v1/webhooks/${id}`, { key: other })).status).toBe(404);
  });
});

describe('webhook addresses without WEBHOOK_ALLOW_PRIVATE', () => {
  let api: ApiServer;
  let key: string;

  beforeAll(async () => {
    api = await startApiServer(databases[0]);
    key = (await api.newKey({ plan: 'pro', scopes: ['webhooks:write'] })).secret;
  });
  afterAll(async () => {
    await api?.close();
  });

  it('refuses loopback, link-local and private hosts, by address or by name', async () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data', 'https://10.1.2.3/x', 'http://192.168.0.10/x', 'http://[::ffff:127.0.0.1]/x', 'http://0.0.0.0/']) {
      const res = await api.call('createWebhook', 'POST', '/v1/webhooks', { key, body: { url, events: ['extraction.completed'] } });
      expect(res.status, url).toBe(400);
      expect((res.body as { error: { message: string } }).error.message).toMatch(/private, loopback or link-local|does not resolve/);
    }
  });
});
