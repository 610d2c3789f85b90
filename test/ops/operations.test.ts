import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { databases, type TestDatabase } from '../store/databases.js';
import { invoicePdf } from '../client/helpers.js';
import { readiness } from '../support/readiness.js';

describe.each(databases)('health, readiness and metrics ($name)', (kind) => {
  let database: TestDatabase;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    database = await kind.create();
    server = await startServer(loadConfig({ PORT: '0', DATABASE_URL: database.url, LOG_LEVEL: 'silent', OCR_WORKERS: '1' }));
    key = server.firstKey!.secret;
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it('answers /healthz and /readyz without a key', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await readiness(server.url);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', rate_limit_store: 'not_configured', ocr: 'ok' } });
  });

  it('keeps answering health, readiness and metrics once the key is out of requests, without counting them', async () => {
    const me = () => fetch(`${server.url}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
    let status = 200;
    for (let i = 0; i < 11 && status === 200; i++) status = (await me()).status;
    expect(status).toBe(429);
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      for (const headers of [{}, { Authorization: `Bearer ${key}` }, { Authorization: 'Bearer nonsense' }] as Record<string, string>[]) {
        const res = await fetch(`${server.url}${path}`, { headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(200);
        expect(res.headers.get('X-RateLimit-Limit')).toBeNull();
      }
    }
  });

  it('exports request, extraction, queue and rejection metrics in Prometheus format', async () => {
    const pdf = await invoicePdf();
    const fresh = await server.store.workspaces.create({ name: 'metrics', plan: 'pro' });
    const { secret } = await server.store.apiKeys.create({ workspace_id: fresh.id, name: 'm', scopes: ['extractions:write'] });
    const created = await fetch(`${server.url}/v1/extractions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file: pdf.toString('base64'), file_name: 'invoice.pdf' }),
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${server.url}/v1/me`, { headers: { Authorization: 'Bearer dx_live_wrong' } })).status).toBe(401);

    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^docex_http_requests_total\{operation="getMe",status="200"\} \d+$/m);
    expect(text).toMatch(/^docex_http_requests_total\{operation="getMe",status="429"\} 1$/m);
    // Errors thrown to the error mapper are recorded with the status the client got, not Koa's default 404.
    expect(text).toMatch(/^docex_http_requests_total\{operation="getMe",status="401"\} 1$/m);
    expect(text).toMatch(/^docex_http_requests_total\{operation="createExtraction",status="201"\} 1$/m);
    expect(text).toMatch(/^docex_http_request_duration_seconds_count\{operation="getMe",status="429"\} 1$/m);
    expect(text).toMatch(/^docex_extraction_duration_seconds_count\{file_type="application\/pdf",path="text"\} 1$/m);
    expect(text).toMatch(/^docex_ocr_queue_depth 0$/m);
    expect(text).toMatch(/^docex_ocr_second_readings_total 0$/m);
    expect(text).toMatch(/^docex_rate_limit_rejections_total\{window="minute"\} 1$/m);
  });
});

const postgres = databases.find((d) => d.name === 'postgres');

describe.runIf(postgres)('readiness when the database goes away', () => {
  it('answers 503 with the database unavailable, while /healthz still answers 200', async () => {
    const database = await postgres!.create();
    const server = await startServer(loadConfig({ PORT: '0', DATABASE_URL: database.url, LOG_LEVEL: 'silent', OCR_WORKERS: '1' }));
    try {
      expect((await readiness(server.url)).status).toBe(200);
      await database.drop();
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'unavailable', checks: { database: 'unavailable' } });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});
