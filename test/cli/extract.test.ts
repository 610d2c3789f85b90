import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoicePdf, startTestServer, type TestServer } from '../client/helpers.js';
import { docex } from './run.js';

describe('docex extract', () => {
  let t: TestServer;
  let dir: string;
  let pdf: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-cli-'));
    pdf = path.join(dir, 'invoice.pdf');
    fs.writeFileSync(pdf, await invoicePdf());
    fs.writeFileSync(path.join(dir, 'notes.pdf'), 'plain text, not a PDF');
    env = { DOCEX_URL: t.url, DOCEX_API_KEY: t.key, DATABASE_URL: `sqlite:${path.join(dir, 'unused.sqlite')}` };
  });
  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints a table of fields from the running server', async () => {
    const run = await docex(['extract', pdf], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [head, blank, header, ...rows] = run.stdout.trimEnd().split('\n');
    expect(head).toMatch(/^invoice\.pdf: completed, 1 page, confidence \d+, template \S+, ext_[0-9A-Z]{26}$/);
    expect(blank).toBe('');
    expect(header).toMatch(/^FIELD\s+VALUE\s+CONFIDENCE\s+EXPLANATION$/);
    expect(rows.find((r) => r.startsWith('invoice_number '))).toMatch(/^invoice_number\s+INV-2026-001\s+\d+\s+\S/);
  });

  it('prints the extraction as JSON with --json', async () => {
    const run = await docex(['extract', pdf, '--json'], env);
    expect(run.code).toBe(0);
    const extraction = JSON.parse(run.stdout);
    expect(extraction).toMatchObject({ status: 'completed', source: 'api', file_name: 'invoice.pdf', data: { invoice_number: 'INV-2026-001' } });
    expect(extraction.id).toMatch(/^ext_/);
  });

  it('runs the pipeline in-process with --local, without a server', async () => {
    const run = await docex(['extract', pdf, '--local', '--json'], { DATABASE_URL: env.DATABASE_URL!, DOCEX_URL: 'http://127.0.0.1:9' });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed', source: 'cli', data: { invoice_number: 'INV-2026-001', total_amount: '1234.50' } });
    expect(fs.existsSync(path.join(dir, 'unused.sqlite'))).toBe(false);
  });

  it('exits 1 with the error code when the server refuses the file', async () => {
    const run = await docex(['extract', path.join(dir, 'notes.pdf')], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^docex: extraction failed: invalid_file \(422\): .+ \(request req_[0-9A-Z]{26}\)\n$/);
  });

  it('exits 1 when the server cannot be reached', async () => {
    const run = await docex(['extract', pdf], { ...env, DOCEX_URL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot reach docex at http://127.0.0.1:9');
  });

  it('exits 2 on wrong usage', async () => {
    const cases = [
      [['extract'], env],
      [['extract', pdf, '--template', 'invoice'], env],
      [['extract', pdf, '--colour'], env],
      [['extract', path.join(dir, 'missing.pdf')], env],
      [['extract', pdf], { DOCEX_URL: t.url }],
    ] as const;
    for (const [args, e] of cases) {
      const run = await docex([...args], { ...e });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/^docex: .+\n\nUsage: docex/);
    }
  });
});
