import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Clock } from '../../src/limits/rate-limiter.js';
import type { Plan } from '../../src/limits/plans.js';
import type { Scope } from '../../src/store/api-keys.js';
import type { DatabaseKind, TestDatabase } from '../store/databases.js';
import { assertMatchesContract, type ApiResponse } from './contract.js';

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface ApiServer {
  server: RunningServer;
  url: string;
  /** The server's DATABASE_URL, for tools run beside it. */
  databaseUrl: string;
  /** The key created on the first start (free plan, every scope). */
  key: string;
  /** Every log line the server wrote, as text. */
  logs: string[];
  /** A request whose response is checked against the document before it is returned. */
  call(operationId: string | null, method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  newKey(options?: { plan?: Plan; scopes?: Scope[]; per_minute?: number; per_day?: number }): Promise<{ secret: string; keyId: string; workspaceId: string }>;
  close(): Promise<void>;
}

/** A settable clock for tests: no test waits for a real minute to pass. */
export function testClock(start = Date.UTC(2026, 10, 22, 12, 0, 30)): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

/** The real server (startServer) on a random port with a fresh database of the given kind. */
export async function startApiServer(kind: DatabaseKind, options: { clock?: Clock; env?: Record<string, string> } = {}): Promise<ApiServer> {
  const db: TestDatabase = await kind.create();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({ PORT: '0', DATABASE_URL: db.url, LOG_LEVEL: 'info', OCR_WORKERS: '1', ...options.env });
  const server = await startServer(config, { clock: options.clock, logger: createLogger('info', sink) });
  if (!server.firstKey) throw new Error('a fresh database must create a first key');
  const key = server.firstKey.secret;

  return {
    server,
    url: server.url,
    databaseUrl: db.url,
    key,
    logs,
    async call(operationId, method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const auth = opts.key === undefined ? key : opts.key;
      if (auth !== null) headers.Authorization = `Bearer ${auth}`;
      let body: string | Buffer | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const res = await fetch(`${server.url}${path}`, { method, headers, body: body as BodyInit | undefined });
      const text = await res.text();
      const type = res.headers.get('content-type') ?? '';
      const parsed: ApiResponse = { status: res.status, headers: res.headers, body: type.includes('json') && text ? JSON.parse(text) : text };
      await assertMatchesContract(operationId, parsed);
      return parsed;
    },
    async newKey(o = {}) {
      const ws = await server.store.workspaces.create({ name: 'test', plan: o.plan ?? 'free', per_minute: o.per_minute, per_day: o.per_day });
      const { key: record, secret } = await server.store.apiKeys.create({
        workspace_id: ws.id,
        name: 'test',
        scopes: o.scopes ?? ['extractions:read', 'extractions:write', 'templates:read', 'templates:write', 'webhooks:read', 'webhooks:write'],
      });
      return { secret, keyId: record.id, workspaceId: ws.id };
    },
    async close() {
      await server.close();
      await db.drop();
    },
  };
}
