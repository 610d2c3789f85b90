import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashesEqual, hashKey } from '../../src/auth/keys.js';
import { docex } from '../cli/run.js';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { EU_INVOICE, invoicePdf } from '../fixtures/documents.js';

const sqlite = databases[0];

describe('keys are secrets', () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer(sqlite);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('never writes a key into logs, error bodies, metrics or the database file', async () => {
    const { secret, keyId } = await api.newKey({ plan: 'business' });
    const bodies: string[] = [];
    const pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
    for (const [operationId, method, path, body, key] of [
      ['getMe', 'GET', '/v1/me', undefined, secret],
      ['createExtraction', 'POST', '/v1/extractions', { file: pdf, file_name: 'a.pdf' }, secret],
      ['createExtraction', 'POST', '/v1/extractions', { file: 'bad', file_name: 'a.pdf' }, secret],
      ['getMe', 'GET', '/v1/me', undefined, `${secret}x`],
      ['getMe', 'GET', '/v1/me', undefined, secret.slice(0, -1)],
    ] as const) {
      const res = await api.call(operationId, method, path, { key, body });
      bodies.push(JSON.stringify(res.body));
    }
    await api.server.store.apiKeys.revoke(keyId);
    bodies.push(JSON.stringify((await api.call('getMe', 'GET', '/v1/me', { key: secret })).body));
    bodies.push(String((await api.call('getMetrics', 'GET', '/metrics', { key: null })).body));
    await api.server.store.db.raw('PRAGMA wal_checkpoint(FULL)');
    const dbFile = api.server.store.db.client.config.connection.filename as string;
    const dump = [dbFile, `${dbFile}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1'));
    const secretPart = secret.slice(12);
    for (const text of [...api.logs, ...bodies, ...dump]) expect(text.includes(secretPart)).toBe(false);
    expect(dump.join('').includes(hashKey(secret))).toBe(true);
  });

  it('compares key hashes in constant time and only equal ones match', () => {
    const a = hashKey('dx_live_a');
    expect(hashesEqual(a, hashKey('dx_live_a'))).toBe(true);
    expect(hashesEqual(a, hashKey('dx_live_b'))).toBe(false);
    expect(hashesEqual(a, a.slice(0, 10))).toBe(false);
  });
});

describe('response headers', () => {
  let api: ApiServer;
  let withCors: ApiServer;

  beforeAll(async () => {
    api = await startApiServer(sqlite);
    withCors = await startApiServer(sqlite, { env: { CORS_ORIGINS: 'https://app.example.com' } });
  });
  afterAll(async () => {
    await api?.close();
    await withCors?.close();
  });

  it('sends security headers on every response and no X-Powered-By', async () => {
    for (const [operationId, path, key] of [
      ['getMe', '/v1/me', undefined],
      ['getMe', '/v1/me', null],
      [null, '/nope', undefined],
      ['getHealth', '/healthz', null],
      ['getOpenApiJson', '/openapi.json', null],
    ] as const) {
      const res = await api.call(operationId, 'GET', path, { key });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
      if (path.startsWith('/v1')) expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('allows only configured origins for CORS', async () => {
    const allowed = await fetch(`${withCors.url}/v1/me`, { headers: { Origin: 'https://app.example.com', Authorization: `Bearer ${withCors.key}` } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
    const preflight = await fetch(`${withCors.url}/v1/extractions`, { method: 'OPTIONS', headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    const other = await fetch(`${withCors.url}/v1/me`, { headers: { Origin: 'https://evil.example.net', Authorization: `Bearer ${withCors.key}` } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('isolation between workspaces', () => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer(sqlite);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('hides every object of workspace B from a key of workspace A, by id and in lists', async () => {
    const a = await api.newKey({ plan: 'business' });
    const b = await api.newKey({ plan: 'business' });
    const pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
    const ext = (await api.call('createExtraction', 'POST', '/v1/extractions', { key: b.secret, body: { file: pdf, file_name: 'b.pdf' } })).body as { id: string };
    const tpl = (await api.call('createTemplate', 'POST', '/v1/templates', { key: b.secret, body: { name: 'B only', keywords: ['ACME'], fields: { po: { parser: 'static', value: '1' } } } })).body as { id: string };
    expect((await api.call('getExtraction', 'GET', `/v1/extractions/${ext.id}`, { key: a.secret })).status).toBe(404);
    expect((await api.call('getTemplate', 'GET', `/v1/templates/${tpl.id}`, { key: a.secret })).status).toBe(404);
    expect((await api.call('updateTemplate', 'PATCH', `/v1/templates/${tpl.id}`, { key: a.secret, body: { name: 'stolen' } })).status).toBe(404);
    expect((await api.call('deleteTemplate', 'DELETE', `/v1/templates/${tpl.id}`, { key: a.secret })).status).toBe(404);
    const extList = (await api.call('listExtractions', 'GET', '/v1/extractions?limit=100', { key: a.secret })).body as { data: { id: string }[] };
    const tplList = (await api.call('listTemplates', 'GET', '/v1/templates?limit=100', { key: a.secret })).body as { data: { id: string; built_in: boolean }[] };
    expect(extList.data).toEqual([]);
    expect(tplList.data.filter((t) => !t.built_in)).toEqual([]);
    expect((await api.call('getTemplate', 'GET', `/v1/templates/${tpl.id}`, { key: b.secret })).status).toBe(200);
    const withTemplate = await api.call('createExtraction', 'POST', '/v1/extractions', { key: a.secret, body: { file: pdf, file_name: 'a.pdf', template_id: tpl.id } });
    expect(withTemplate.status).toBe(400);
  });
});

describe.each(databases)('changes made with the docex CLI, another process, on $name', (kind) => {
  let api: ApiServer;

  beforeAll(async () => {
    api = await startApiServer(kind);
  });
  afterAll(async () => {
    await api?.close();
  });

  // Run without blocking: the server shares this test's event loop and must go on committing.
  const cli = async (...args: string[]) => expect(await docex(args, { DATABASE_URL: api.databaseUrl })).toMatchObject({ code: 0 });

  it('count from the next request, although the server remembers authenticated keys', async () => {
    const { secret, keyId, workspaceId } = await api.newKey({ plan: 'free' });
    const me = () => api.call('getMe', 'GET', '/v1/me', { key: secret });
    for (let i = 0; i < 3; i++) expect((await me()).status).toBe(200);
    await cli('workspace', 'set-plan', workspaceId, '--plan', 'pro');
    const afterPlan = await me();
    expect((afterPlan.body as { workspace: { plan: string } }).workspace.plan).toBe('pro');
    expect(afterPlan.headers.get('x-ratelimit-limit')).toBe('60');
    await cli('key', 'revoke', keyId);
    expect((await me()).status).toBe(401);
  });
});
