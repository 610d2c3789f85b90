import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, testClock, type ApiServer } from '../support/api-server.js';
import { DE_INVOICE, EU_EXPECTED, EU_INVOICE, invoicePdf, layoutPdf } from '../fixtures/documents.js';
import { ciiXml, DE_E_INVOICE } from '../fixtures/einvoice.js';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-ratelimit-limit-day', 'x-ratelimit-remaining-day', 'x-ratelimit-reset-day'];
const EXT_ID = 'ext_01JDQ8ZK3N4XW5V6B7C8D9E0FG';
const TPL_ID = 'tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0';

describe.each(databases)('service foundation on $name', (kind) => {
  let api: ApiServer;
  const clock = testClock();

  beforeAll(async () => {
    api = await startApiServer(kind, { clock });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('GET /v1/me returns the key metadata in the spec shape', async () => {
    const { secret, keyId, workspaceId } = await api.newKey({ plan: 'pro', scopes: ['extractions:read'] });
    const res = await api.call('getMe', 'GET', '/v1/me', { key: secret });
    expect(res.status).toBe(200);
    const body = res.body as { api_key: Record<string, unknown>; workspace: Record<string, unknown>; request_id: string };
    expect(body.api_key).toEqual({ id: keyId, name: 'test', prefix: secret.slice(0, 12), scopes: ['extractions:read'], workspace_id: workspaceId });
    expect(body.workspace).toMatchObject({ id: workspaceId, plan: 'pro', limits: { per_minute: 60, per_day: 2000 } });
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
    expect(JSON.stringify(res.body)).not.toContain(secret);
  });

  it('publishes the document unauthenticated and without rate limiting', async () => {
    for (let i = 0; i < 3; i++) {
      const yaml = await api.call('getOpenApiYaml', 'GET', '/openapi.yaml', { key: null });
      expect(yaml.status).toBe(200);
      expect(String(yaml.body)).toContain('openapi: 3.0.3');
      expect(yaml.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const json = await api.call('getOpenApiJson', 'GET', '/openapi.json', { key: null });
    expect((json.body as { paths: object }).paths).toHaveProperty('/v1/extractions');
  });

  it('answers an unknown route 404 and a wrong method 405 with Allow', async () => {
    const missing = await api.call(null, 'GET', '/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect((missing.body as { error: { code: string } }).error.code).toBe('not_found');
    const wrong = await api.call(null, 'DELETE', '/v1/me');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect((wrong.body as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });

  it('names the offending member of an invalid body, and refuses malformed JSON and other content types', async () => {
    const missing = await api.call('createExtraction', 'POST', '/v1/extractions', { body: { file: 'JVBERi0xLjQK' } });
    expect(missing.status).toBe(400);
    expect((missing.body as { error: { message: string } }).error.message).toContain('body.file_name');
    const extra = await api.call('createExtraction', 'POST', '/v1/extractions', { body: { file: 'JVBERi0xLjQK', file_name: 'a.pdf', colour: 'red' } });
    expect((extra.body as { error: { message: string } }).error.message).toContain('body.colour');
    const typed = await api.call('createExtraction', 'POST', '/v1/extractions', { body: { file: 42, file_name: 'a.pdf' } });
    expect((typed.body as { error: { message: string } }).error.message).toContain('body.file');
    const malformed = await api.call('createExtraction', 'POST', '/v1/extractions', { raw: '{"file":', headers: { 'Content-Type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect((malformed.body as { error: { code: string } }).error.code).toBe('invalid_request');
    const text = await api.call('createExtraction', 'POST', '/v1/extractions', { raw: 'hello', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(415);
    const badId = await api.call('getExtraction', 'GET', '/v1/extractions/ext_nope');
    expect(badId.status).toBe(400);
    expect((badId.body as { error: { message: string } }).error.message).toContain('path.id');
  });

  /** Streams 40 MiB of body in 1 MiB chunks, stopping as soon as the server answers. */
  function postLarge(framing: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const url = new URL(`${api.url}/v1/extractions`);
      const req = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json', ...framing } },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      let answered = false;
      req.on('response', () => (answered = true));
      // The server closes the connection after refusing; a write racing that close is expected.
      req.on('error', (err) => {
        if (!answered) reject(err);
      });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 40 && !answered) {
          sent++;
          if (!req.write(chunk)) return req.once('drain', pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
  }

  it('refuses a body over 28 MiB with 413 while it streams, with and without Content-Length', async () => {
    const framings: Record<string, string>[] = [{ 'Content-Length': String(40 * 1024 * 1024) }, { 'Transfer-Encoding': 'chunked' }];
    for (const framing of framings) {
      const res = await postLarge(framing);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).error.code).toBe('payload_too_large');
    }
  });

  it('answers 401 with WWW-Authenticate for missing, malformed, unknown and revoked keys', async () => {
    const { secret, keyId } = await api.newKey();
    for (const key of [null, 'not-a-key', `dx_live_${'A'.repeat(43)}`, `${secret}x`]) {
      const res = await api.call('getMe', 'GET', '/v1/me', { key });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((res.body as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    const basic = await api.call('getMe', 'GET', '/v1/me', { key: null, headers: { Authorization: `Basic ${secret}` } });
    expect(basic.status).toBe(401);
    expect((await api.call('getMe', 'GET', '/v1/me', { key: secret })).status).toBe(200);
    await api.server.store.apiKeys.revoke(keyId);
    expect((await api.call('getMe', 'GET', '/v1/me', { key: secret })).status).toBe(401);
  });

  it('refuses a key of a deleted workspace', async () => {
    const { secret, workspaceId } = await api.newKey();
    await api.server.store.workspaces.update(workspaceId, { deleted_at: new Date().toISOString() });
    expect((await api.call('getMe', 'GET', '/v1/me', { key: secret })).status).toBe(401);
  });

  it('answers 403 insufficient_scope for every scoped operation when the key lacks the scope', async () => {
    const { secret } = await api.newKey({ plan: 'business', scopes: [] });
    const cases: [string, string, string, unknown?][] = [
      ['createExtraction', 'POST', '/v1/extractions', { file: 'JVBERi0xLjQK', file_name: 'a.pdf' }],
      ['listExtractions', 'GET', '/v1/extractions'],
      ['getExtraction', 'GET', `/v1/extractions/${EXT_ID}`],
      ['createTemplate', 'POST', '/v1/templates', { name: 'x', keywords: ['x'], fields: {} }],
      ['listTemplates', 'GET', '/v1/templates'],
      ['getTemplate', 'GET', `/v1/templates/${TPL_ID}`],
      ['updateTemplate', 'PATCH', `/v1/templates/${TPL_ID}`, { name: 'y' }],
      ['deleteTemplate', 'DELETE', `/v1/templates/${TPL_ID}`],
    ];
    for (const [operationId, method, path, body] of cases) {
      const res = await api.call(operationId, method, path, { key: secret, body });
      expect(res.status, operationId).toBe(403);
      expect((res.body as { error: { code: string } }).error.code).toBe('insufficient_scope');
    }
    expect((await api.call('getMe', 'GET', '/v1/me', { key: secret })).status).toBe(200);
  });

  it('creates, reads and lists extractions, and hides them from other workspaces', async () => {
    const owner = await api.newKey({ plan: 'business' });
    const other = await api.newKey({ plan: 'business' });
    const pdf = await invoicePdf(EU_INVOICE);
    const created = await api.call('createExtraction', 'POST', '/v1/extractions', { key: owner.secret, body: { file: pdf.toString('base64'), file_name: 'invoice.pdf' } });
    expect(created.status).toBe(201);
    const ext = created.body as { id: string; status: string; data: Record<string, string>; credits_used: number; request_id: string; source: string; e_invoice: unknown };
    expect(ext.status).toBe('completed');
    expect(ext.e_invoice).toBeNull();
    expect(ext.source).toBe('api');
    expect(ext.credits_used).toBe(1);
    expect(ext.request_id).toBe(created.headers.get('x-request-id'));
    expect(created.headers.get('location')).toBe(`/v1/extractions/${ext.id}`);
    expect(ext.data.invoice_number).toBe(EU_EXPECTED.invoice_number);

    const read = await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}`, { key: owner.secret });
    expect(read.status).toBe(200);
    expect((read.body as { data: unknown }).data).toEqual(ext.data);
    const list = await api.call('listExtractions', 'GET', '/v1/extractions?limit=5', { key: owner.secret });
    expect((list.body as { data: { id: string }[] }).data.map((e) => e.id)).toEqual([ext.id]);

    const hidden = await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}`, { key: other.secret });
    const missing = await api.call('getExtraction', 'GET', `/v1/extractions/${EXT_ID}`, { key: other.secret });
    expect(hidden.status).toBe(404);
    expect((hidden.body as { error: unknown }).error).toEqual({ code: 'not_found', message: `No such extraction ${ext.id}.` });
    expect(missing.status).toBe(404);
    expect((await api.call('listExtractions', 'GET', '/v1/extractions', { key: other.secret })).body).toMatchObject({ data: [], has_more: false });
  });

  it('says which e-invoice attachment was read, and keeps saying it when the extraction is read again', async () => {
    const owner = await api.newKey({ plan: 'business' });
    const pdf = await layoutPdf(DE_INVOICE, [{ name: 'factur-x.xml', content: Buffer.from(ciiXml(DE_E_INVOICE)) }]);
    const created = await api.call('createExtraction', 'POST', '/v1/extractions', { key: owner.secret, body: { file: pdf.toString('base64'), file_name: 'rechnung.pdf' } });
    expect(created.status).toBe(201);
    const ext = created.body as { id: string; e_invoice: unknown; data: Record<string, string> };
    const eInvoice = { attachment: 'factur-x.xml', syntax: 'CII', profile: 'EN 16931', specification: 'urn:cen.eu:en16931:2017', status: 'read', message: null };
    expect(ext.e_invoice).toEqual(eInvoice);
    expect(ext.data).toMatchObject({ total_amount: '529.87', 'line_items.1.description': 'Joghurt Banane', 'tax_lines.0.tax_rate': '19' });
    const read = await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}`, { key: owner.secret });
    expect((read.body as { e_invoice: unknown }).e_invoice).toEqual(eInvoice);
  });

  it('reads path parameters percent-decoded and with a trailing slash, and refuses malformed ones with 400 naming the member', async () => {
    const { secret } = await api.newKey({ plan: 'business' });
    const created = await api.call('createExtraction', 'POST', '/v1/extractions', { key: secret, body: { file: (await invoicePdf(EU_INVOICE)).toString('base64'), file_name: 'p.pdf' } });
    const id = (created.body as { id: string }).id;
    for (const path of [`/v1/extractions/${id}`, `/v1/extractions/${id}/`, `/v1/extractions/${encodeURIComponent(id).replace('_', '%5F')}`]) {
      const res = await api.call('getExtraction', 'GET', path, { key: secret });
      expect(res.status).toBe(200);
      expect((res.body as { id: string }).id).toBe(id);
    }
    for (const bad of ['%E0%A4%A', 'ext_%00', 'tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0']) {
      const res = await api.call('getExtraction', 'GET', `/v1/extractions/${bad}`, { key: secret });
      expect(res.status).toBe(400);
      expect((res.body as { error: { message: string } }).error.message).toMatch(/^path\.id: /);
    }
    const limit = await api.call('listExtractions', 'GET', '/v1/extractions?limit=abc', { key: secret });
    expect(limit.status).toBe(400);
    expect((limit.body as { error: { message: string } }).error.message).toMatch(/^query\.limit: /);
  });

  it('pages a list with starting_after', async () => {
    const { secret } = await api.newKey({ plan: 'business' });
    const pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key: secret, body: { file: pdf, file_name: `i${i}.pdf` } });
      ids.push((res.body as { id: string }).id);
    }
    const first = (await api.call('listExtractions', 'GET', '/v1/extractions?limit=2', { key: secret })).body as { data: { id: string }[]; has_more: boolean };
    expect(first.data.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const second = (await api.call('listExtractions', 'GET', `/v1/extractions?limit=2&starting_after=${ids[1]}`, { key: secret })).body as { data: { id: string }[]; has_more: boolean };
    expect(second.data.map((e) => e.id)).toEqual([ids[0]]);
    expect(second.has_more).toBe(false);
  });

  it('maps an unexpected exception to a 500 envelope without a stack, logged with the request id', async () => {
    const { secret } = await api.newKey();
    const repo = api.server.store.extractions;
    const original = repo.get;
    repo.get = async () => {
      throw new Error('boom in the store');
    };
    try {
      const res = await api.call('getExtraction', 'GET', `/v1/extractions/${EXT_ID}`, { key: secret });
      expect(res.status).toBe(500);
      expect((res.body as { error: { code: string } }).error.code).toBe('internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(/boom|at .*\.ts/);
      const requestId = res.headers.get('x-request-id')!;
      const logged = api.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === requestId && l.level === 50);
      expect(logged?.err?.message).toBe('boom in the store');
    } finally {
      repo.get = original;
    }
  });

  it('sends all six rate-limit headers on authenticated responses, errors included, with epoch-second resets', async () => {
    const { secret } = await api.newKey({ plan: 'basic' });
    for (const [operationId, method, path] of [['getMe', 'GET', '/v1/me'], ['getExtraction', 'GET', `/v1/extractions/${EXT_ID}`], ['getExtraction', 'GET', '/v1/extractions/bad']] as const) {
      const res = await api.call(operationId, method, path, { key: secret });
      for (const h of RATE_HEADERS) expect(res.headers.get(h), `${h} on ${res.status}`).toMatch(/^\d+$/);
    }
    const res = await api.call('getMe', 'GET', '/v1/me', { key: secret });
    const now = clock.now() / 1000;
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    const resetDay = Number(res.headers.get('x-ratelimit-reset-day'));
    expect(reset).toBeGreaterThan(now);
    expect(reset - now).toBeLessThanOrEqual(60);
    expect(reset % 60).toBe(0);
    expect(resetDay % 86400).toBe(0);
    expect(resetDay - now).toBeLessThanOrEqual(86400);
    expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    expect(res.headers.get('x-ratelimit-limit-day')).toBe('500');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('26');
  });

  it('refuses the 11th request in a minute with 429 and Retry-After, and a refusal consumes nothing', async () => {
    const { secret } = await api.newKey({ plan: 'free' });
    for (let i = 0; i < 10; i++) expect((await api.call('getMe', 'GET', '/v1/me', { key: secret })).status).toBe(200);
    const refused = await api.call('getMe', 'GET', '/v1/me', { key: secret });
    expect(refused.status).toBe(429);
    expect((refused.body as { error: { code: string } }).error.code).toBe('rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBe(Math.ceil(Number(refused.headers.get('x-ratelimit-reset')) - clock.now() / 1000));
    expect(refused.headers.get('x-ratelimit-remaining-day')).toBe('15');
    await api.call('getMe', 'GET', '/v1/me', { key: secret });
    clock.advance(60_000);
    const next = await api.call('getMe', 'GET', '/v1/me', { key: secret });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('9');
    expect(next.headers.get('x-ratelimit-remaining-day')).toBe('14');
  });

  it('refuses past the daily quota until the next UTC day, whatever the minute', async () => {
    const { secret } = await api.newKey({ plan: 'free' });
    let allowed = 0;
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 10; i++) if ((await api.call('getMe', 'GET', '/v1/me', { key: secret })).status === 200) allowed++;
      clock.advance(60_000);
    }
    expect(allowed).toBe(25);
    const refused = await api.call('getMe', 'GET', '/v1/me', { key: secret });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining-day')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBe(Math.ceil(Number(refused.headers.get('x-ratelimit-reset-day')) - clock.now() / 1000));
    clock.advance(86_400_000);
    expect((await api.call('getMe', 'GET', '/v1/me', { key: secret })).status).toBe(200);
  });

  it('gives exactly 10 successes and 40 refusals to 50 concurrent requests on a fresh free key', async () => {
    const { secret } = await api.newKey({ plan: 'free' });
    const results = await Promise.all(Array.from({ length: 50 }, () => api.call('getMe', 'GET', '/v1/me', { key: secret })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
  });

  it('carries a request id on every response, including unauthenticated ones', async () => {
    const ids = new Set<string>();
    for (const path of ['/v1/me', '/healthz', '/nope', '/openapi.json']) {
      const res = await fetch(`${api.url}${path}`);
      ids.add(res.headers.get('x-request-id')!);
    }
    expect(ids.size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
