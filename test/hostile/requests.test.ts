import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';

const EXT = 'ext_01JDQ8ZK3N4XW5V6B7C8D9E0FG';
const PDF_B64 = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');

/** Bad requests on every endpoint: each gets a documented 4xx envelope with request_id (checked by `call`). */
describe('hostile requests', () => {
  let api: ApiServer;
  let key: string;

  beforeAll(async () => {
    api = await startApiServer(databases[0]);
    key = (await api.newKey({ plan: 'enterprise', per_minute: 100_000, per_day: 1_000_000 })).secret;
  });
  afterAll(async () => {
    await api?.close();
  });

  const code = (res: { body: unknown }) => (res.body as { error: { code: string } }).error.code;

  it('refuses malformed bodies with 400/415 and a clear message', async () => {
    const cases: [string, Record<string, string>, number][] = [
      ['{"file": "x", "file_name": ', { 'Content-Type': 'application/json' }, 400],
      ['[1,2,3]', { 'Content-Type': 'application/json' }, 400],
      ['null', { 'Content-Type': 'application/json' }, 400],
      ['"just a string"', { 'Content-Type': 'application/json' }, 400],
      ['file=x', { 'Content-Type': 'application/x-www-form-urlencoded' }, 415],
      ['{"file":"x","file_name":"a.pdf"}', { 'Content-Type': 'text/plain' }, 415],
      ['', { 'Content-Type': 'application/json' }, 400],
    ];
    for (const [raw, headers, status] of cases) {
      const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key, raw, headers });
      expect(res.status, raw).toBe(status);
    }
  });

  it('refuses compressed bodies and prototype keys instead of reading them', async () => {
    const gzip = await api.call('createExtraction', 'POST', '/v1/extractions', {
      key,
      raw: zlib.gzipSync(JSON.stringify({ file: PDF_B64, file_name: 'a.pdf' })),
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    });
    expect(gzip.status).toBe(415);
    expect((gzip.body as { error: { message: string } }).error.message).toBe('Send the body uncompressed (got Content-Encoding: gzip).');
    const proto = await api.call('createExtraction', 'POST', '/v1/extractions', { key, raw: `{"file":"${PDF_B64}","file_name":"a.pdf","__proto__":{"admin":true}}`, headers: { 'Content-Type': 'application/json' } });
    expect(proto.status).toBe(400);
    expect((proto.body as { error: { message: string } }).error.message).toMatch(/^The request body is not valid JSON: .*prototype/);
  });

  it('names missing, null, wrong-typed, extra and oversized members', async () => {
    const cases: [unknown, string][] = [
      [{ file_name: 'a.pdf' }, 'body.file'],
      [{ file: null, file_name: 'a.pdf' }, 'body.file'],
      [{ file: PDF_B64, file_name: 7 }, 'body.file_name'],
      [{ file: PDF_B64, file_name: 'a.pdf', content_type: 'text/html' }, 'body.content_type'],
      [{ file: PDF_B64, file_name: 'a.pdf', template_id: 'tpl_../../x' }, 'body.template_id'],
      [{ file: PDF_B64, file_name: 'a.pdf', admin: true }, 'body.admin'],
      [{ file: PDF_B64, file_name: 'x'.repeat(10_000) }, 'body.file_name'],
      [{ file: PDF_B64, file_name: 'evil\u0000.pdf' }, 'body.file_name'],
      [{ file: PDF_B64, file_name: 'line\nbreak.pdf' }, 'body.file_name'],
      [{ file: '', file_name: 'a.pdf' }, 'body.file'],
    ];
    for (const [body, member] of cases) {
      const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((res.body as { error: { message: string } }).error.message).toContain(member);
    }
  });

  it('refuses invalid base64 and an empty file as invalid_file', async () => {
    for (const file of ['not base64!', 'JVBERi0', 'JVBERi0x\nLjQK', 'data:application/pdf;base64,JVBERi0xLjQK', '====']) {
      const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file, file_name: 'a.pdf' } });
      expect(res.status, file).toBe(422);
      expect(code(res)).toBe('invalid_file');
    }
  });

  it('stores unicode and path-like file names as given and never uses them as paths', async () => {
    const before = new Set(fs.readdirSync(process.cwd()));
    for (const name of ['../../../../tmp/docex-escape.pdf', 'Rechnung März 2026 — 東京.pdf', '..\\..\\windows.pdf']) {
      const res = await api.call('createExtraction', 'POST', '/v1/extractions', { key, body: { file: PDF_B64, file_name: name } });
      expect(res.status).toBe(201);
      expect((res.body as { file_name: string }).file_name).toBe(name);
    }
    expect(fs.existsSync(path.join('/tmp', 'docex-escape.pdf'))).toBe(false);
    expect(new Set(fs.readdirSync(process.cwd()))).toEqual(before);
  });

  it('refuses malformed, too long and wrongly prefixed ids with 400, unknown ones with 404', async () => {
    for (const id of ['ext_123', `ext_${'A'.repeat(200)}`, 'tpl_01JDQ9A1B2C3D4E5F6G7H8J9K0', 'ext_01jdq8zk3n4xw5v6b7c8d9e0fg', '%2e%2e%2fetc']) {
      expect((await api.call('getExtraction', 'GET', `/v1/extractions/${id}`, { key })).status, id).toBe(400);
    }
    expect((await api.call('getExtraction', 'GET', `/v1/extractions/${EXT}`, { key })).status).toBe(404);
    expect((await api.call('getTemplate', 'GET', '/v1/templates/ext_01JDQ8ZK3N4XW5V6B7C8D9E0FG', { key })).status).toBe(400);
  });

  it('handles odd Authorization headers', async () => {
    const raw = async (headers: [string, string][]) => {
      const res = await fetch(`${api.url}/v1/me`, { headers: new Headers(headers) });
      return res.status;
    };
    expect(await raw([['authorization', `Bearer ${key}`]])).toBe(200);
    expect(await raw([['Authorization', `bearer ${key}`]])).toBe(200);
    expect(await raw([['Authorization', `Bearer    ${key}`]])).toBe(200);
    expect(await raw([['Authorization', `Bearer${key}`]])).toBe(401);
    expect(await raw([['Authorization', `Bearer ${key} extra`]])).toBe(401);
    expect(await raw([['Authorization', `Bearer ${'k'.repeat(8000)}`]])).toBe(401);
    const duplicated = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${api.url}/v1/me`);
      import('node:http').then(({ default: http }) => {
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, headers: { Authorization: [`Bearer ${key}`, `Bearer ${key}`] } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
    });
    expect(duplicated).toBe(401);
  });

  it('answers what the HTTP parser refuses with the envelope and a request id', async () => {
    const { connect } = await import('node:net');
    const url = new URL(api.url);
    const send = (request: string) =>
      new Promise<{ status: number; headers: string; body: { error: { code: string }; request_id: string } }>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.end(request));
        let raw = '';
        socket.on('data', (chunk) => (raw += chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const [head, body] = raw.split('\r\n\r\n');
          resolve({ status: Number(head!.split(' ')[1]), headers: head!, body: JSON.parse(body!) });
        });
      });
    const huge = await send(`GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`);
    expect(huge.status).toBe(431);
    expect(huge.body.error.code).toBe('headers_too_large');
    expect(huge.headers).toContain(`X-Request-Id: ${huge.body.request_id}`);
    expect(huge.body.request_id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    const garbage = await send('NOT-HTTP \u0001\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe('invalid_request');
    // The server is unharmed.
    expect((await api.call('getMe', 'GET', '/v1/me', { key })).status).toBe(200);
  });
});
