import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { openStore } from '../../src/store/index.js';
import { databases } from '../store/databases.js';
import { startServerProcess } from '../scale/processes.js';
import { startApiServer } from '../support/api-server.js';
import { EU_INVOICE, invoicePdf, renderPage } from '../fixtures/documents.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-faults-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function keyFor(databaseUrl: string, plan: 'free' | 'business' = 'business'): Promise<string> {
  const store = await openStore(databaseUrl);
  try {
    const ws = await store.workspaces.create({ name: 'faults', plan });
    return (await store.apiKeys.create({ workspace_id: ws.id, name: 'faults', scopes: ['extractions:read', 'extractions:write'] })).secret;
  } finally {
    await store.close();
  }
}

const scan = async () => (await sharp(await renderPage(await invoicePdf(EU_INVOICE), 300)).png().toBuffer()).toString('base64');

describe('faults', () => {
  it('fails an extraction cut off by SIGKILL at the next start, and keeps the rest', async () => {
    const databaseUrl = `sqlite:${path.join(tmp, 'killed.sqlite')}`;
    const key = await keyFor(databaseUrl);
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const first = await startServerProcess({ DATABASE_URL: databaseUrl });
    const done = await (await fetch(`${first.url}/v1/extractions`, { method: 'POST', headers: auth, body: JSON.stringify({ file: (await invoicePdf(EU_INVOICE)).toString('base64'), file_name: 'done.pdf' }) })).json();
    expect(done.status).toBe('completed');
    const body = JSON.stringify({ file: await scan(), file_name: 'scan.png' });
    const store = await openStore(databaseUrl);
    // Three scans on one OCR worker: at least two are still processing when the process is killed.
    for (let i = 0; i < 3; i++) fetch(`${first.url}/v1/extractions`, { method: 'POST', headers: auth, body }).catch(() => undefined);
    let processing: string[] = [];
    for (let i = 0; i < 400 && processing.length < 3; i++) {
      processing = (await store.db('extractions').where({ status: 'processing' }).select('id')).map((r: { id: string }) => r.id);
      if (processing.length < 3) await new Promise((r) => setTimeout(r, 25));
    }
    await store.close();
    expect(processing).toHaveLength(3);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startServerProcess({ DATABASE_URL: databaseUrl });
    try {
      const after = await Promise.all(processing.map(async (id) => (await fetch(`${second.url}/v1/extractions/${id}`, { headers: auth })).json()));
      expect(after.map((e) => e.status)).not.toContain('processing');
      const interrupted = after.filter((e) => e.error_code === 'interrupted');
      expect(interrupted.length).toBeGreaterThanOrEqual(1);
      for (const e of interrupted) expect(e.error_message).toMatch(/stopped/);
      const kept = await (await fetch(`${second.url}/v1/extractions/${done.id}`, { headers: auth })).json();
      expect(kept).toMatchObject({ status: 'completed', data: done.data });
    } finally {
      await second.stop();
    }
  });

  it('exits non-zero with a clear message when the database cannot be reached at start', () => {
    const tsx = path.join('node_modules', '.bin', 'tsx');
    const run = spawnSync(tsx, ['src/main.ts'], { env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORT: '0' }, encoding: 'utf8', timeout: 60_000 });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/could not start.*(ECONNREFUSED|connect)/is);
    const bad = spawnSync(tsx, ['src/main.ts'], { env: { ...process.env, DATABASE_URL: 'mysql://x' }, encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('DATABASE_URL must start with sqlite: or postgres://');
  });

  it('keeps rate-limit counters across a restart on SQLite', async () => {
    const databaseUrl = `sqlite:${path.join(tmp, 'counters.sqlite')}`;
    const key = await keyFor(databaseUrl, 'free');
    const config = loadConfig({ PORT: '0', DATABASE_URL: databaseUrl, OCR_WORKERS: '1' });
    const me = async (url: string) => fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
    const first = await startServer(config, { logger: createLogger('silent') });
    for (let i = 0; i < 5; i++) expect((await me(first.url)).status).toBe(200);
    await first.close();
    const second = await startServer(config, { logger: createLogger('silent') });
    try {
      const res = await me(second.url);
      expect(res.headers.get('x-ratelimit-remaining-day')).toBe('19');
    } finally {
      await second.close();
    }
  });

  it('fails an OCR page that runs past its timeout and serves the next request', async () => {
    const api = await startApiServer(databases[0], { env: { OCR_TIMEOUT_MS: '100' } });
    try {
      const slow = await api.call('createExtraction', 'POST', '/v1/extractions', { body: { file: await scan(), file_name: 'scan.png' } });
      expect(slow.status).toBe(201);
      expect(slow.body).toMatchObject({ status: 'failed', error_code: 'timeout' });
      const next = await api.call('createExtraction', 'POST', '/v1/extractions', { body: { file: (await invoicePdf(EU_INVOICE)).toString('base64'), file_name: 'next.pdf' } });
      expect(next.body).toMatchObject({ status: 'completed' });
    } finally {
      await api.close();
    }
  });

  const postgres = databases.find((d) => d.name === 'postgres');
  it.runIf(postgres)('answers 503 while PostgreSQL is unreachable and recovers without a restart', async () => {
    const database = await postgres!.create();
    const target = new URL(database.url);
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as net.AddressInfo).port;
    const viaProxy = new URL(database.url);
    viaProxy.host = `127.0.0.1:${port}`;
    const api = await startApiServer({ name: 'postgres', create: async () => ({ url: viaProxy.toString(), drop: database.drop }) });
    try {
      expect((await api.call('getMe', 'GET', '/v1/me')).status).toBe(200);
      await new Promise<void>((r) => {
        proxy.close(() => r());
        for (const s of sockets) s.destroy();
      });
      const down = await api.call('getMe', 'GET', '/v1/me');
      expect(down.status).toBe(503);
      expect((down.body as { error: { code: string } }).error.code).toBe('service_unavailable');
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
      await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await api.call('getMe', 'GET', '/v1/me')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      await api.close();
      proxy.close();
    }
  });
});
