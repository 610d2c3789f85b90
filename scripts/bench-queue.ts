/**
 * `npm run bench:queue`: queued (`Prefer: respond-async`) extractions against synchronous ones on the
 * same server and the same OCR workers. Prints the synchronous OCR throughput, the throughput at which
 * BENCH_QUEUE_COUNT (default 500) queued single-page scans drain, their ratio (target >= 90%), and the
 * time from POST to 202 (p50, p99; target p99 < 50 ms) measured while the queue drains, and what the
 * main thread (server and this client share it) did meanwhile: its event loop's delay and the time it
 * was busy per queued scan, which other work on a shared machine stretches less than wall time.
 *
 * The scan is a generated single page (BENCH_SCAN=invoice, the default: the test suite's EU invoice
 * at 150 dpi; BENCH_SCAN=small: a receipt-sized page). Other variables: BENCH_SYNC_COUNT (default 40);
 * BENCH_DATABASE_URL, a PostgreSQL server (postgres://user@host:port/any-database) on which the bench
 * makes a database of its own and drops it at the end (without it: SQLite in a temporary directory);
 * BENCH_REDIS_URL, a Redis for the queue (BullMQ) and the rate-limit counters, as for bench:api. The
 * server's own variables (OCR_WORKERS, QUEUE_CONCURRENCY, ...) apply as for `npm start`.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { postgres, sqlite } from '../test/store/databases.js';
import { benchScan } from './bench-scan.js';

const QUEUED = Number(process.env.BENCH_QUEUE_COUNT ?? 500);
const SYNC = Number(process.env.BENCH_SYNC_COUNT ?? 40);
/** The event-loop delay is sampled by a timer of this period; what is printed is how late it fired. */
const LOOP_SAMPLE_MS = 10;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const scan = benchScan(process.env.BENCH_SCAN === 'small' ? 'small' : 'invoice', 150);
const database = await (process.env.BENCH_DATABASE_URL ? postgres(process.env.BENCH_DATABASE_URL) : sqlite).create();
const redis = process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {};
const config = loadConfig({ ...process.env, ...redis, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, QUEUE_POLL_MS: '50' });
const server = await startServer(config, { logger: createLogger('warn') });
const ws = await server.store.workspaces.create({ name: 'bench', plan: 'enterprise', per_minute: 1_000_000, per_day: 10_000_000 });
const { secret } = await server.store.apiKeys.create({ workspace_id: ws.id, name: 'bench', scopes: ['extractions:read', 'extractions:write'] });
const headers = { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' };
const body = JSON.stringify({ file: scan, file_name: 'scan.png' });
const post = (extra: Record<string, string> = {}) => fetch(`${server.url}/v1/extractions`, { method: 'POST', headers: { ...headers, ...extra }, body });

try {
  // Warm-up: the OCR workers start in the background.
  for (let i = 0; i < 2; i++) await (await post()).json();

  // Synchronous: as many requests in flight as the queue runs jobs at once, so both keep the OCR workers equally busy.
  let next = 0;
  const syncStarted = performance.now();
  await Promise.all(
    Array.from({ length: config.queueConcurrency }, async () => {
      while (next++ < SYNC) {
        const res = await post();
        if (res.status !== 201) throw new Error(`synchronous request answered ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  const syncRate = SYNC / ((performance.now() - syncStarted) / 1000);

  // Queued: BENCH_QUEUE_COUNT POSTs, four in flight, while the workers drain the queue. GET /v1/me is
  // timed meanwhile as the reference for what this machine's event loop allows any request.
  const latencies: number[] = [];
  const meLatencies: number[] = [];
  let draining = true;
  const probe = (async () => {
    while (draining) {
      const t = performance.now();
      await (await fetch(`${server.url}/v1/me`, { headers })).arrayBuffer();
      meLatencies.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  let sent = 0;
  const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loopDelay.enable();
  const busyBefore = performance.eventLoopUtilization();
  const queueStarted = performance.now();
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (sent++ < QUEUED) {
        const t = performance.now();
        const res = await post({ Prefer: 'respond-async' });
        latencies.push(performance.now() - t);
        if (res.status !== 202) throw new Error(`queued request answered ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  const unfinished = () =>
    server.store.db('extractions').where({ workspace_id: ws.id, status: 'processing' }).count({ n: '*' }).then(([r]) => Number(r.n));
  while ((await unfinished()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  const queueRate = QUEUED / ((performance.now() - queueStarted) / 1000);
  const busy = performance.eventLoopUtilization(busyBefore);
  loopDelay.disable();
  draining = false;
  await probe;
  meLatencies.sort((a, b) => a - b);
  const [{ n: failed }] = await server.store.db('extractions').where({ workspace_id: ws.id, status: 'failed' }).count({ n: '*' });
  latencies.sort((a, b) => a - b);

  console.log(`\n${server.store.dialect}, queue ${config.redisUrl ? 'BullMQ' : 'in the database'}, OCR_WORKERS=${config.ocrWorkers}, QUEUE_CONCURRENCY=${config.queueConcurrency}, scan ${process.env.BENCH_SCAN ?? 'invoice'} (${Math.round((scan.length * 3) / 4 / 1024)} KiB)\n`);
  console.log('| measure | value | target |');
  console.log('|---|---|---|');
  console.log(`| synchronous, ${SYNC} scans | ${syncRate.toFixed(2)} scans/s | |`);
  console.log(`| queued, ${QUEUED} scans drained | ${queueRate.toFixed(2)} scans/s | |`);
  console.log(`| queued / synchronous | ${((100 * queueRate) / syncRate).toFixed(1)}% | >= 90% |`);
  console.log(`| POST to 202 while draining, p50 / p99 | ${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} ms | p99 < 50 ms |`);
  console.log(`| GET /v1/me meanwhile, p50 / p99 | ${percentile(meLatencies, 50).toFixed(1)} / ${percentile(meLatencies, 99).toFixed(1)} ms | |`);
  const late = (ns: number) => Math.max(0, ns / 1e6 - LOOP_SAMPLE_MS).toFixed(1);
  console.log(`| event-loop delay while draining, p50 / p99 / max | ${late(loopDelay.percentile(50))} / ${late(loopDelay.percentile(99))} / ${late(loopDelay.max)} ms | |`);
  console.log(`| main thread busy while draining | ${(100 * busy.utilization).toFixed(1)}%, ${(busy.active / QUEUED).toFixed(1)} ms a queued scan | |`);
  console.log(`| failed extractions | ${failed} | 0 |`);
} finally {
  await server.close();
  await database.drop();
}
