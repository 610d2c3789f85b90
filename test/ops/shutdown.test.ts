import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { invoicePdf } from '../client/helpers.js';
import { startServerProcess, type ServerProcess } from '../scale/processes.js';

/** Resolves once `predicate` holds, checking a bounded number of times. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function connectError(url: string): Promise<string | null> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/healthz`, (res) => {
      res.resume();
      resolve(null);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describe('SIGTERM', () => {
  let dir: string;
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-sigterm-'));
    const databaseUrl = `sqlite:${path.join(dir, 'docex.sqlite')}`;
    const store = await openStore(databaseUrl);
    const ws = await store.workspaces.create({ name: 'w', plan: 'pro' });
    key = (await store.apiKeys.create({ workspace_id: ws.id, name: 'k', scopes: ['extractions:write', 'extractions:read'] })).secret;
    await store.close();
    server = await startServerProcess({ DATABASE_URL: databaseUrl, SHUTDOWN_TIMEOUT_MS: '20000' });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finishes the request in flight with its normal response, refuses new connections and exits 0', async () => {
    const body = Buffer.from(JSON.stringify({ file: (await invoicePdf()).toString('base64'), file_name: 'invoice.pdf' }));
    // An upload half sent: the request is in flight until the rest arrives, as with a client on a slow link.
    const req = http.request(`${server.url}/v1/extractions`, {
      method: 'POST',
      // 100-continue tells us when the server has read the headers, i.e. the request is in flight there.
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': body.length, Expect: '100-continue' },
    });
    const accepted = new Promise<void>((resolve) => req.once('continue', () => resolve()));
    const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; json: Record<string, unknown> }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: JSON.parse(text) }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    await accepted;
    const half = Math.floor(body.length / 2);
    await new Promise<void>((resolve) => req.write(body.subarray(0, half), () => resolve()));

    server.child.kill('SIGTERM');
    await until(() => server.logs.some((l) => l.msg === 'shutting down'), 'the server to start shutting down');
    expect(await connectError(server.url)).toBe('ECONNREFUSED');
    expect(server.child.exitCode).toBeNull();

    req.end(body.subarray(half));
    const res = await response;
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: 'completed', file_name: 'invoice.pdf' });
    expect(res.headers.location).toBe(`/v1/extractions/${res.json.id}`);
    // The client is told to hang up, so the stop need not wait out the keep-alive timeout.
    expect(res.headers.connection).toBe('close');

    expect(await server.exited).toBe(0);
    expect(server.logs.some((l) => l.msg === 'docex stopped')).toBe(true);
  });

  it('gives up on a request that does not finish within SHUTDOWN_TIMEOUT_MS and still exits 0', async () => {
    const databaseUrl = `sqlite:${path.join(dir, 'stuck.sqlite')}`;
    const store = await openStore(databaseUrl);
    const ws = await store.workspaces.create({ name: 'w', plan: 'pro' });
    const secret = (await store.apiKeys.create({ workspace_id: ws.id, name: 'k', scopes: ['extractions:write'] })).secret;
    await store.close();
    const stuck = await startServerProcess({ DATABASE_URL: databaseUrl, SHUTDOWN_TIMEOUT_MS: '300' });
    const req = http.request(`${stuck.url}/v1/extractions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'Content-Length': 1000, Expect: '100-continue' },
    });
    const outcome = new Promise<string>((resolve) => {
      req.on('response', (res) => resolve(`response ${res.statusCode}`));
      req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    const accepted = new Promise<void>((resolve) => req.once('continue', () => resolve()));
    req.flushHeaders();
    await accepted;
    req.write('{"file":"');
    stuck.child.kill('SIGTERM');
    expect(await stuck.exited).toBe(0);
    expect(await outcome).toBe('ECONNRESET');
  });
});
