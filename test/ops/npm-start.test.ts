import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docex, INSTALLED } from '../cli/run.js';
import { EU_EXPECTED, EU_INVOICE, invoicePdf, renderPage, smallInvoicePdf } from '../fixtures/documents.js';
import { startServerProcess, type ServerProcess } from '../scale/processes.js';
import { readiness } from '../support/readiness.js';
import { sh } from '../support/sh.js';

const root = path.resolve(import.meta.dirname, '../..');

interface Extraction {
  status: string;
  data: Record<string, string>;
  document: { pages: { source: string }[] };
}

/**
 * The server as `npm start` runs it once `npm ci` has built it: compiled JavaScript from dist/
 * under plain Node, its document, template and OCR workers loaded from there too, and its key
 * made with the installed `docex` command, as the README says.
 */
describe('npm start, from the build in dist/', () => {
  let dir: string;
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    await sh('npm', ['run', 'build'], root);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-dist-'));
    const env = { DATABASE_URL: `sqlite:${path.join(dir, 'docex.sqlite')}` };
    server = await startServerProcess(env, 'dist');
    const cli = async (...args: string[]) => {
      const run = await docex(args, env, INSTALLED);
      expect(run).toMatchObject({ code: 0 });
      return JSON.parse(run.stdout) as Record<string, string>;
    };
    const workspace = await cli('workspace', 'create', '--name', 'dist', '--plan', 'pro');
    key = (await cli('key', 'create', '--workspace', workspace.id!, '--name', 'dist', '--scopes', 'extractions:read,extractions:write')).key!;
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function extract(file: Buffer, fileName: string): Promise<Extraction> {
    const res = await fetch(`${server.url}/v1/extractions?include=document`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ file: file.toString('base64'), file_name: fileName }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as Extraction;
  }

  it('becomes ready', async () => {
    expect((await readiness(server.url)).status).toBe(200);
  });

  it('reads a PDF with a text layer', async () => {
    const extraction = await extract(await invoicePdf(EU_INVOICE), 'invoice.pdf');
    expect(extraction).toMatchObject({ status: 'completed', document: { pages: [{ source: 'text_layer' }] } });
    const { invoice_number, invoice_date, total_amount, iban } = EU_EXPECTED;
    expect(extraction.data).toMatchObject({ invoice_number, invoice_date, total_amount, iban });
  });

  it('reads a PNG through OCR', async () => {
    const extraction = await extract(await renderPage(await smallInvoicePdf(), 150), 'scan.png');
    expect(extraction).toMatchObject({ status: 'completed', data: { invoice_number: 'INV-77', total_amount: '12.50', currency: 'EUR' }, document: { pages: [{ source: 'ocr' }] } });
  });
});
