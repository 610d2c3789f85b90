import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { EU_INVOICE, US_INVOICE, invoicePdf, renderPage } from '../test/fixtures/documents.js';
import { percentile } from './percentile.js';

export interface SoakReport {
  seconds: number;
  requests: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  rssStartMb: number;
  rssEndMb: number;
  created: number;
  lost: number;
  problems: string[];
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * Mixed traffic on loopback against a server started here: valid PDFs and images, bad files, reads,
 * and free keys pushed into 429s. Fails on any 5xx, on a created extraction that cannot be read back,
 * or on RSS growing more than 20% after warm-up. Warm-up is the first third of the run (at most 40 s): V8
 * grows its heap to its working size over the first 20 to 30 s of this traffic before it levels off, and that
 * growth is not a leak. RSS is sampled every 250 ms and the rest of the run is cut in two halves; what is
 * compared is each half's floor, the lowest sample, since a single sample swings by 100 MB or more with the
 * jobs in flight (a page being rendered, a collection just before it runs) while a leak raises the floor.
 */
export async function runSoak(seconds: number, log: (line: string) => void = () => undefined): Promise<SoakReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-soak-'));
  const server = await startServer(loadConfig({ PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'soak.sqlite')}`, OCR_WORKERS: '1' }), { logger: createLogger('warn') });
  try {
    const ws = await server.store.workspaces.create({ name: 'soak', plan: 'enterprise', per_minute: 1_000_000, per_day: 10_000_000 });
    const scopes = ['extractions:read', 'extractions:write'] as const;
    const heavy = (await server.store.apiKeys.create({ workspace_id: ws.id, name: 'soak', scopes: [...scopes] })).secret;
    const free = await Promise.all(
      [1, 2].map(async (i) => {
        const w = await server.store.workspaces.create({ name: `free-${i}`, plan: 'free' });
        return (await server.store.apiKeys.create({ workspace_id: w.id, name: 'free', scopes: [...scopes] })).secret;
      }),
    );
    const pdfs = await Promise.all([invoicePdf(EU_INVOICE), invoicePdf(US_INVOICE)]);
    const png = await sharp(await renderPage(pdfs[0], 150)).png().toBuffer();
    const bodies = {
      pdf: pdfs.map((p, i) => JSON.stringify({ file: p.toString('base64'), file_name: `invoice-${i}.pdf` })),
      image: JSON.stringify({ file: png.toString('base64'), file_name: 'scan.png' }),
      bad: [
        JSON.stringify({ file: 'R0lGODlhAQABAAAAACw=', file_name: 'x.gif' }),
        JSON.stringify({ file: pdfs[0].subarray(0, 500).toString('base64'), file_name: 'truncated.pdf' }),
        JSON.stringify({ file: 'not base64', file_name: 'a.pdf' }),
        '{"file": ',
      ],
    };

    const statuses: Record<string, number> = {};
    const latencies: number[] = [];
    const created: { id: string; key: string }[] = [];
    const problems: string[] = [];
    const deadline = Date.now() + seconds * 1000;
    const warmupEnds = Date.now() + Math.min(40, seconds / 3) * 1000;
    const rssSamples: number[] = [];
    const sampler = setInterval(() => {
      if (Date.now() >= warmupEnds) rssSamples.push(process.memoryUsage().rss);
    }, 250);

    async function request(key: string, method: string, url: string, body?: string): Promise<void> {
      const started = performance.now();
      const res = await fetch(`${server.url}${url}`, { method, body, headers: { Authorization: `Bearer ${key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) } });
      const text = await res.text();
      latencies.push(performance.now() - started);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status >= 500) problems.push(`${method} ${url} -> ${res.status} ${text.slice(0, 200)}`);
      if (res.status === 201) created.push({ id: JSON.parse(text).id, key });
    }

    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
    async function worker(n: number): Promise<void> {
      for (let i = 0; Date.now() < deadline; i++) {
        const roll = (i + n) % 10;
        if (roll < 3) await request(heavy, 'POST', '/v1/extractions', pick(bodies.pdf));
        else if (roll === 3 && n === 0) await request(heavy, 'POST', '/v1/extractions', bodies.image);
        else if (roll < 6) await request(heavy, 'POST', '/v1/extractions', pick(bodies.bad));
        else if (roll < 8) await request(pick(free), 'GET', '/v1/me');
        else if (created.length) {
          const c = pick(created);
          await request(c.key, 'GET', `/v1/extractions/${c.id}`);
        } else await request(heavy, 'GET', '/v1/extractions?limit=5');
      }
    }
    await Promise.all([0, 1, 2, 3].map(worker)).finally(() => clearInterval(sampler));
    rssSamples.push(process.memoryUsage().rss);
    const cut = Math.floor(rssSamples.length / 2);
    const rssEnd = Math.min(...rssSamples.slice(cut));
    const rssStart = cut ? Math.min(...rssSamples.slice(0, cut)) : rssEnd;

    let lost = 0;
    for (const c of created) {
      const res = await fetch(`${server.url}/v1/extractions/${c.id}`, { headers: { Authorization: `Bearer ${c.key}` } });
      const body = (await res.json()) as { status?: string };
      if (res.status !== 200 || body.status === 'processing') lost++;
    }
    if (lost) problems.push(`${lost} created extractions could not be read back complete`);
    if (rssEnd > rssStart * 1.2) problems.push(`RSS floor grew from ${mb(rssStart)} MB to ${mb(rssEnd)} MB (more than 20%)`);
    const report: SoakReport = {
      seconds,
      requests: latencies.length,
      statuses,
      p50: Math.round(percentile(latencies, 50)),
      p99: Math.round(percentile(latencies, 99)),
      rssStartMb: mb(rssStart),
      rssEndMb: mb(rssEnd),
      created: created.length,
      lost,
      problems,
    };
    log(`soak: ${report.requests} requests in ${seconds} s; statuses ${JSON.stringify(statuses)}; p50 ${report.p50} ms, p99 ${report.p99} ms`);
    log(`soak: RSS floor ${report.rssStartMb} MB in the first half after warm-up -> ${report.rssEndMb} MB in the second; ${report.created} extractions created, ${lost} lost`);
    return report;
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seconds = Number(process.env.SOAK_SECONDS ?? process.argv[2] ?? 120);
  const report = await runSoak(seconds, (line) => process.stdout.write(`${line}\n`));
  for (const p of report.problems) process.stderr.write(`FAIL ${p}\n`);
  process.exit(report.problems.length ? 1 : 0);
}
