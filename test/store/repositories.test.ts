import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { newId } from '../../src/ids.js';
import { databases, type TestDatabase } from './databases.js';

describe.each(databases)('store on $name', (kind) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await kind.create();
    store = await openStore(database.url);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('runs the migrations once: opening the database again changes nothing', async () => {
    const again = await openStore(database.url);
    try {
      const done = await again.db('knex_migrations').select('name').orderBy('name');
      expect(done.map((r) => r.name)).toEqual(['001_initial', '002_instances', '003_documents', '004_e_invoice', '005_idempotency_keys', '006_extraction_jobs', '007_webhooks']);
    } finally {
      await again.close();
    }
  });

  it('counts workspaces as a number and lists them in id order without the deleted ones', async () => {
    const before = await store.workspaces.count();
    expect(typeof before).toBe('number');
    const a = await store.workspaces.create({ name: 'a', plan: 'free' });
    const b = await store.workspaces.create({ name: 'b', plan: 'enterprise', per_minute: 1000, per_day: 100000 });
    expect(await store.workspaces.count()).toBe(before + 2);
    expect(await store.workspaces.get(b.id)).toEqual(b);
    await store.workspaces.update(a.id, { deleted_at: new Date().toISOString() });
    const listed = (await store.workspaces.list()).map((w) => w.id);
    expect(listed).toContain(b.id);
    expect(listed).not.toContain(a.id);
    expect(listed).toEqual([...listed].sort());
  });

  it('refuses an enterprise workspace without limits and keeps custom limits as numbers', async () => {
    await expect(store.workspaces.create({ name: 'e', plan: 'enterprise' })).rejects.toThrow(/no limits/);
    const ws = await store.workspaces.create({ name: 'c', plan: 'pro', per_minute: 7, per_day: null });
    const updated = await store.workspaces.update(ws.id, { plan: 'basic', per_day: 99 });
    expect(updated).toMatchObject({ plan: 'basic', per_minute: 7, per_day: 99 });
    expect(await store.workspaces.get(ws.id)).toMatchObject({ plan: 'basic', per_minute: 7, per_day: 99 });
  });

  it('finds a key by its secret with its scopes, and no longer once revoked or its workspace deleted', async () => {
    const ws = await store.workspaces.create({ name: 'keys', plan: 'free' });
    const { key, secret } = await store.apiKeys.create({ workspace_id: ws.id, name: 'k', scopes: ['extractions:read', 'templates:write'] });
    expect(await store.apiKeys.findBySecret(secret)).toEqual({ key, workspace: ws });
    expect(key.scopes).toEqual(['extractions:read', 'templates:write']);
    expect(await store.apiKeys.findBySecret(`${secret.slice(0, -1)}x`)).toBeUndefined();

    const other = await store.apiKeys.create({ workspace_id: ws.id, name: 'other', scopes: [] });
    const revoked = await store.apiKeys.revoke(key.id);
    expect(revoked?.revoked_at).toEqual(expect.any(String));
    expect(await store.apiKeys.findBySecret(secret)).toBeUndefined();
    expect((await store.apiKeys.findBySecret(other.secret))?.key).toEqual(other.key);
    expect((await store.apiKeys.listByWorkspace(ws.id)).map((k) => k.id)).toEqual([key.id, other.key.id].sort());

    await store.workspaces.update(ws.id, { deleted_at: new Date().toISOString() });
    expect(await store.apiKeys.findBySecret(other.secret)).toBeUndefined();
  });

  it('remembers authenticated keys without a query, and sees a revocation or plan change made through another store (process) at once', async () => {
    const cached = await openStore(database.url, { cacheKeys: true });
    const queries: string[] = [];
    cached.db.on('query', (q: { sql: string }) => queries.push(q.sql));
    // A lookup that makes no query: the key came from memory (PostgreSQL first needs its listener connected).
    const fromMemory = (secret: string) =>
      vi.waitFor(async () => {
        queries.length = 0;
        expect(await cached.apiKeys.findBySecret(secret)).toBeDefined();
        expect(queries).toEqual([]);
      }, { timeout: 5000, interval: 20 });
    // SQLite sees the change on the very next lookup; PostgreSQL once the notification has arrived,
    // which within one process needs the event loop to turn.
    const next = <T>(lookup: () => Promise<T>, check: (v: T) => void) =>
      kind.name === 'sqlite' ? lookup().then(check) : vi.waitFor(async () => check(await lookup()), { timeout: 2000, interval: 5 });
    try {
      const ws = await store.workspaces.create({ name: 'cached', plan: 'free' });
      const own = await cached.apiKeys.create({ workspace_id: ws.id, name: 'own', scopes: [] });
      await fromMemory(own.secret);
      await cached.workspaces.update(ws.id, { plan: 'pro' });
      expect((await cached.apiKeys.findBySecret(own.secret))?.workspace.plan).toBe('pro');
      await cached.apiKeys.revoke(own.key.id);
      expect(await cached.apiKeys.findBySecret(own.secret)).toBeUndefined();

      const elsewhere = await store.apiKeys.create({ workspace_id: ws.id, name: 'elsewhere', scopes: [] });
      await fromMemory(elsewhere.secret);
      await store.workspaces.update(ws.id, { plan: 'business' });
      await next(() => cached.apiKeys.findBySecret(elsewhere.secret), (p) => expect(p?.workspace.plan).toBe('business'));
      await fromMemory(elsewhere.secret);
      await store.apiKeys.revoke(elsewhere.key.id);
      await next(() => cached.apiKeys.findBySecret(elsewhere.secret), (p) => expect(p).toBeUndefined());
    } finally {
      await cached.close();
    }
  });

  it.runIf(kind.name === 'postgres')('reads keys from the database while it cannot listen for changes, and remembers them again once it can', async () => {
    const cached = await openStore(database.url, { cacheKeys: true });
    let queries = 0;
    cached.db.on('query', () => (queries += 1));
    try {
      const ws = await store.workspaces.create({ name: 'deaf', plan: 'free' });
      const { secret } = await store.apiKeys.create({ workspace_id: ws.id, name: 'deaf', scopes: [] });
      await cached.apiKeys.findBySecret(secret);
      await store.db.raw(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = 'LISTEN docex_principals'`);
      // Once the cut is noticed every lookup queries, until the listener is back and nothing is queried.
      await vi.waitFor(async () => {
        const before = queries;
        await cached.apiKeys.findBySecret(secret);
        expect(queries).toBe(before + 1);
      }, { timeout: 2000, interval: 5 });
      await vi.waitFor(async () => {
        const before = queries;
        expect(await cached.apiKeys.findBySecret(secret)).toBeDefined();
        expect(queries).toBe(before);
      }, { timeout: 5000, interval: 20 });
    } finally {
      await cached.close();
    }
  });

  it('stores extraction fields as JSON and the upload as bytes, unchanged', async () => {
    const ws = await store.workspaces.create({ name: 'ext', plan: 'free' });
    const upload = Buffer.from([0, 1, 2, 255, 254, 0x25, 0x50, 0x44, 0x46]);
    const created = await store.extractions.create(
      { id: newId('ext'), workspace_id: ws.id, file_name: 'Rechnung – März.pdf', file_type: 'application/pdf', template_id: null, source: 'api', request_id: newId('req') },
      upload,
    );
    expect(created.status).toBe('processing');
    const row = await store.db('extractions').where({ id: created.id }).first();
    expect(Buffer.compare(Buffer.from(row.upload), upload)).toBe(0);

    const fields = [{ id: 1, field: 'total', value: '1234.50', confidence: 93, explanation: 'Label «Total» – “Σ”', page: 1 }];
    const e_invoice = { attachment: 'factur-x.xml', syntax: 'CII' as const, profile: 'EN 16931' as const, specification: 'urn:cen.eu:en16931:2017', status: 'read' as const, message: null };
    await store.extractions.finish(created.id, { status: 'completed', template_id: null, confidence: 93, pages: 1, credits_used: 1, fields, e_invoice });
    const done = await store.extractions.get(ws.id, created.id);
    expect(done).toMatchObject({ status: 'completed', confidence: 93, pages: 1, credits_used: 1, file_name: 'Rechnung – März.pdf', fields, e_invoice });
    expect(done).not.toHaveProperty('upload');
    expect(done).not.toHaveProperty('owner_instance');

    // A finished extraction is final: a late second outcome changes nothing.
    await store.extractions.finish(created.id, { status: 'failed', error_code: 'x', error_message: 'y', pages: 0, credits_used: 0 });
    expect((await store.extractions.get(ws.id, created.id))?.status).toBe('completed');
    expect(await store.extractions.get('ws_other', created.id)).toBeUndefined();
  });

  it('lists extractions newest first and pages through them with the last id', async () => {
    const ws = await store.workspaces.create({ name: 'pages', plan: 'free' });
    const other = await store.workspaces.create({ name: 'other', plan: 'free' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = newId('ext');
      ids.push(id);
      await store.extractions.create({ id, workspace_id: ws.id, file_name: `${i}.png`, file_type: 'image/png', template_id: null, source: 'api', request_id: null }, null);
    }
    await store.extractions.create({ id: newId('ext'), workspace_id: other.id, file_name: 'x.png', file_type: 'image/png', template_id: null, source: 'api', request_id: null }, null);
    const newestFirst = [...ids].reverse();
    const first = await store.extractions.list(ws.id, 2);
    expect(first.rows.map((r) => r.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const second = await store.extractions.list(ws.id, 2, first.rows[1].id);
    expect(second.rows.map((r) => r.id)).toEqual(newestFirst.slice(2, 4));
    const last = await store.extractions.list(ws.id, 2, second.rows[1].id);
    expect(last.rows.map((r) => r.id)).toEqual(newestFirst.slice(4));
    expect(last.hasMore).toBe(false);
  });

  it('orders ids byte by byte, as SQLite does, whatever the collation', async () => {
    const ws = await store.workspaces.create({ name: 'order', plan: 'free' });
    const ids = ['tpl_builtin_a_b', 'tpl_builtin_ab', 'tpl_01AAAAAAAAAAAAAAAAAAAAAAAA', 'tpl_ZZZZZZZZZZZZZZZZZZZZZZZZZZ', 'tpl_builtin_a'];
    const now = new Date().toISOString();
    for (const id of ids) {
      await store.templates.insert({
        id,
        object: 'template',
        workspace_id: ws.id,
        name: id,
        keywords: ['k'],
        priority: 5,
        fields: { total: { parser: 'static', value: '1' } },
        built_in: false,
        created_at: now,
        updated_at: now,
      } as never);
    }
    const byteOrderDesc = [...ids].sort((a, b) => Buffer.compare(Buffer.from(b), Buffer.from(a)));
    expect((await store.templates.listAll(ws.id)).map((t) => t.id)).toEqual(byteOrderDesc);
  });

  it('replaces, reads and deletes a template only within its workspace', async () => {
    const ws = await store.workspaces.create({ name: 'tpl', plan: 'free' });
    const now = new Date().toISOString();
    const template = {
      id: newId('tpl'),
      object: 'template',
      workspace_id: ws.id,
      name: 'ACME',
      keywords: ['ACME'],
      priority: 5,
      fields: { total: { parser: 'regex', regex: 'Total:\\s+(\\S+)' } },
      built_in: false,
      created_at: now,
      updated_at: now,
    } as never as Parameters<Store['templates']['insert']>[0];
    await store.templates.insert(template);
    await store.templates.replace({ ...template, name: 'ACME v2', priority: 9, updated_at: new Date(Date.now() + 1000).toISOString() });
    expect(await store.templates.get(ws.id, template.id)).toMatchObject({ name: 'ACME v2', priority: 9, keywords: ['ACME'], built_in: false });
    expect(await store.templates.get('ws_other', template.id)).toBeUndefined();
    expect(await store.templates.delete('ws_other', template.id)).toBe(false);
    expect(await store.templates.delete(ws.id, template.id)).toBe(true);
    expect(await store.templates.get(ws.id, template.id)).toBeUndefined();
  });
});
