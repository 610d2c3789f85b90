import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { databases, testRedisUrl, type TestDatabase } from '../store/databases.js';
import { readiness } from '../support/readiness.js';
import { freePort, startRedis, startServerProcess, type RedisProcess, type ServerProcess } from './processes.js';

const postgres = databases.find((d) => d.name === 'postgres');
const redisUrl = testRedisUrl();

async function me(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
}

describe.runIf(postgres && redisUrl)('two server processes on one PostgreSQL and one Redis', () => {
  let database: TestDatabase;
  let store: Store;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await postgres!.create();
    store = await openStore(database.url);
    const env = { DATABASE_URL: database.url, REDIS_URL: redisUrl! };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await store?.close();
    await database?.drop();
  });

  it('share one Free key’s minute: exactly 10 of 50 concurrent requests succeed, 40 get 429', async () => {
    const ws = await store.workspaces.create({ name: 'free', plan: 'free' });
    const { secret } = await store.apiKeys.create({ workspace_id: ws.id, name: 'k', scopes: [] });
    expect(new Set(servers.map((s) => s.url)).size).toBe(2);
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => me(servers[i % 2].url, secret)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    // Both processes answered some of the 429s: the count is shared, not per process.
    const refusedBy = new Set(responses.map((r, i) => (r.status === 429 ? i % 2 : -1)).filter((i) => i >= 0));
    expect(refusedBy).toEqual(new Set([0, 1]));
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.headers.get('Retry-After')).toMatch(/^\d+$/);
    expect((await refused.json()).error.code).toBe('rate_limited');
  });

  it('both report ready with the database and Redis checked', async () => {
    for (const server of servers) {
      expect(await (await readiness(server.url)).json()).toEqual({ status: 'ok', checks: { database: 'ok', rate_limit_store: 'ok', ocr: 'ok' } });
    }
  });
});

describe.runIf(redisUrl)('a Redis outage', () => {
  let dir: string;
  let redis: RedisProcess | null = null;
  let server: ServerProcess;
  let store: Store;
  let key: string;
  let port: number;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-redis-down-'));
    const databaseUrl = `sqlite:${path.join(dir, 'docex.sqlite')}`;
    store = await openStore(databaseUrl);
    const ws = await store.workspaces.create({ name: 'ent', plan: 'enterprise', per_minute: 100_000, per_day: 1_000_000 });
    key = (await store.apiKeys.create({ workspace_id: ws.id, name: 'k', scopes: [] })).secret;
    port = await freePort();
    redis = await startRedis(port);
    server = await startServerProcess({ DATABASE_URL: databaseUrl, REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses limited requests with a 503 envelope and Retry-After, then recovers by itself when Redis is back', async () => {
    expect((await me(server.url, key)).status).toBe(200);

    await redis!.stop();
    redis = null;
    const down = await me(server.url, key);
    expect(down.status).toBe(503);
    expect(down.headers.get('Retry-After')).toMatch(/^\d+$/);
    const body = await down.json();
    expect(body.error.code).toBe('service_unavailable');
    expect(body.request_id).toMatch(/^req_/);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks.rate_limit_store).toBe('unavailable');
    // Health and metrics need no counter: they keep answering.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);

    redis = await startRedis(port);
    // The client reconnects in the background (backoff capped at 2 s); poll a bounded number of times.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await me(server.url, key)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    expect(await (await readiness(server.url)).json()).toMatchObject({ status: 'ok', checks: { rate_limit_store: 'ok' } });
    expect(server.child.exitCode).toBeNull();
  });

  it('with RATE_LIMIT_FAIL_OPEN=true lets requests through, unlimited, while Redis is unreachable', async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    const open = await startServer(
      loadConfig({ PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'open.sqlite')}`, REDIS_URL: unreachable, RATE_LIMIT_FAIL_OPEN: 'true', LOG_LEVEL: 'silent', OCR_WORKERS: '1' }),
    );
    try {
      const res = await me(open.url, open.firstKey!.secret);
      expect(res.status).toBe(200);
      expect(res.headers.get('X-RateLimit-Limit')).toBeNull();
      // The queue is on the unreachable Redis too: an asynchronous request gets 503 after a bounded
      // wait, and its extraction is not left processing.
      const queued = await fetch(`${open.url}/v1/extractions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${open.firstKey!.secret}`, 'Content-Type': 'application/json', Prefer: 'respond-async' },
        body: JSON.stringify({ file: Buffer.from('%PDF-1.4\n%%EOF').toString('base64'), file_name: 'a.pdf' }),
      });
      expect(queued.status).toBe(503);
      expect(((await queued.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      expect(await open.store.db('extractions').where({ status: 'processing' }).count({ n: '*' }).then(([r]) => Number(r.n))).toBe(0);
    } finally {
      await open.close();
    }
  });
});
