import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server.js';

export interface TestServer {
  server: RunningServer;
  url: string;
  /** The key the server creates on its first start (free plan, every scope). */
  key: string;
  close(): Promise<void>;
}

/** The real server on a random port with its own temporary SQLite database. */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-test-'));
  const config = loadConfig({ PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'docex.sqlite')}`, LOG_LEVEL: 'silent', OCR_WORKERS: '1' });
  const server = await startServer(config, options);
  if (!server.firstKey) throw new Error('a fresh database should print a first key');
  return {
    server,
    url: server.url,
    key: server.firstKey.secret,
    async close() {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A one-page invoice with a text layer: labels in one column, values in the next. */
export function invoicePdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50 });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(20).text('ACME Corporation', 50, 50);
    doc.fontSize(16).text('INVOICE', 50, 90);
    const rows: [string, string][] = [
      ['Invoice No.:', 'INV-2026-001'],
      ['Invoice Date:', '22.11.2026'],
      ['Due Date:', '22.12.2026'],
      ['Total:', '1,234.50 EUR'],
    ];
    doc.fontSize(11);
    rows.forEach(([label, value], i) => {
      doc.text(label, 50, 140 + i * 22);
      doc.text(value, 220, 140 + i * 22);
    });
    doc.end();
  });
}
