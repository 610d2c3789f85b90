/**
 * `npm run bench:queue`: queued (`Prefer: respond-async`) extractions against synchronous ones on the
 * same server and the same OCR workers. Prints the synchronous OCR throughput, the throughput at which
 * BENCH_QUEUE_COUNT (default 500) queued single-page scans drain, their ratio (target >= 90%), and the
 * time from POST to 202 (p50, p99): for the first 100 sent at once, four in flight, and for the rest,
 * sent at twice the synchronous rate while the queue drains (target p99 < 50 ms), and what the
 * server's main thread did meanwhile: its event loop's delay, the time it was busy per queued scan
 * (which other work on a shared machine stretches less than wall time), and its full garbage
 * collections, each a pause for every request it is answering.
 *
 * The server runs in this process; the requests are sent from a child process, as clients are
 * elsewhere, so that sending them and reading the answers does not share the server's event loop.
 *
 * The scan is a generated single page (BENCH_SCAN=invoice, the default: the test suite's EU invoice
 * at 150 dpi; BENCH_SCAN=small: a receipt-sized page). Other variables: BENCH_SYNC_COUNT (default 40);
 * BENCH_DATABASE_URL, a PostgreSQL server (postgres://user@host:port/any-database) on which the bench
 * makes a database of its own and drops it at the end (without it: SQLite in a temporary directory);
 * BENCH_REDIS_URL, a Redis for the queue (BullMQ) and the rate-limit counters, as for bench:api. The
 * server's own variables (OCR_WORKERS, QUEUE_CONCURRENCY, ...) apply as for `npm start`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchScan } from './bench-scan.js';
import { percentile } from './percentile.js';

/** What the parent asks of the client child, and what the child answers. */
type Ask =
  | { do: 'sync'; url: string; secret: string; scan: string; count: number; inFlight: number }
  | { do: 'queue'; burst: number; paced: number; perSecond: number }
  | { do: 'stop-probe' };
type Answer = { syncRate: number } | Queued | { meLatencies: number[] };
/** POST-to-202 times of the queued scans sent in a burst and of those sent at a steady rate. */
interface Queued {
  burst: number[];
  paced: number[];
}

const CLIENT = '--client';
const self = fileURLToPath(import.meta.url);
/**
 * How often the bench counts the scans still queued. Its count waits for the server's connection as
 * any request does; 500 ms in a drain of minutes is precise enough.
 */
const DRAINED_POLL_MS = 500;
/** Queued scans sent at once before the rest are sent at a steady rate. */
const BURST = 100;
/** The event-loop delay is sampled by a timer of this period; what is printed is how late it fired. */
const LOOP_SAMPLE_MS = 10;

/** "p50 / p99 ms" of the times. */
const p50p99 = (times: number[]) => (times.length ? `${percentile(times, 50).toFixed(1)} / ${percentile(times, 99).toFixed(1)} ms` : 'none sent');

/** Child mode: sends the requests the parent asks for and answers with what it measured. */
function client(): void {
  let post: (extra?: Record<string, string>) => Promise<Response>;
  let headers: Record<string, string>;
  let url: string;
  let probe: Promise<number[]> | null = null;
  let probing = false;
  const answer = (a: Answer) => process.send!(a);
  process.on('message', async (ask: Ask) => {
    if (ask.do === 'sync') {
      ({ url } = ask);
      headers = { Authorization: `Bearer ${ask.secret}`, 'Content-Type': 'application/json' };
      const body = JSON.stringify({ file: ask.scan, file_name: 'scan.png' });
      post = (extra = {}) => fetch(`${url}/v1/extractions`, { method: 'POST', headers: { ...headers, ...extra }, body });
      // Warm-up: the OCR workers start in the background.
      for (let i = 0; i < 2; i++) await (await post()).json();
      // As many requests in flight as the queue runs jobs at once, so both keep the OCR workers equally busy.
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: ask.inFlight }, async () => {
          while (next++ < ask.count) {
            const res = await post();
            if (res.status !== 201) throw new Error(`synchronous request answered ${res.status}`);
            await res.arrayBuffer();
          }
        }),
      );
      answer({ syncRate: ask.count / ((performance.now() - started) / 1000) });
    } else if (ask.do === 'queue') {
      // GET /v1/me is timed while the queue drains, as the reference for what any request gets.
      probing = true;
      probe = (async () => {
        const times: number[] = [];
        while (probing) {
          const t = performance.now();
          await (await fetch(`${url}/v1/me`, { headers })).arrayBuffer();
          times.push(performance.now() - t);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return times;
      })();
      // The queued POSTs: a burst, four in flight, sent as fast as they are answered; then the rest
      // one every 1/perSecond s (still at most four in flight) while the queue drains.
      const queued: Queued = { burst: [], paced: [] };
      const send = async (into: number[]) => {
        const t = performance.now();
        const res = await post({ Prefer: 'respond-async' });
        into.push(performance.now() - t);
        if (res.status !== 202) throw new Error(`queued request answered ${res.status}`);
        await res.arrayBuffer();
      };
      let sent = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (sent++ < ask.burst) await send(queued.burst);
        }),
      );
      const inFlight = new Set<Promise<void>>();
      const pacedStart = performance.now();
      for (let i = 0; i < ask.paced; i++) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, pacedStart + (i * 1000) / ask.perSecond - performance.now())));
        if (inFlight.size >= 4) await Promise.race(inFlight);
        const sending: Promise<void> = send(queued.paced).finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
      await Promise.all(inFlight);
      answer(queued);
    } else {
      probing = false;
      answer({ meLatencies: await probe! });
    }
  });
}

/** Asks the child and waits for its answer; a child that exits first fails the bench. */
async function ask<A extends Answer>(child: ChildProcess, question: Ask): Promise<A> {
  child.send(question);
  const [reply] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(([code]) => Promise.reject(new Error(`the client exited with ${code}`)))])) as [A];
  return reply;
}

async function bench(): Promise<void> {
  // Imported here, not at the top, so that the client child does not load the server.
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/logger.js');
  const { startServer } = await import('../src/server.js');
  const { postgres, sqlite } = await import('../test/store/databases.js');
  const QUEUED = Number(process.env.BENCH_QUEUE_COUNT ?? 500);
  const SYNC = Number(process.env.BENCH_SYNC_COUNT ?? 40);

  const scan = benchScan(process.env.BENCH_SCAN === 'small' ? 'small' : 'invoice', 150);
  const database = await (process.env.BENCH_DATABASE_URL ? postgres(process.env.BENCH_DATABASE_URL) : sqlite).create();
  const redis = process.env.BENCH_REDIS_URL ? { REDIS_URL: process.env.BENCH_REDIS_URL } : {};
  const config = loadConfig({ ...process.env, ...redis, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url });
  const server = await startServer(config, { logger: createLogger('warn') });
  const child = fork(self, [CLIENT], { execArgv: ['--import', 'tsx'] });
  try {
    const ws = await server.store.workspaces.create({ name: 'bench', plan: 'enterprise', per_minute: 1_000_000, per_day: 10_000_000 });
    const { secret } = await server.store.apiKeys.create({ workspace_id: ws.id, name: 'bench', scopes: ['extractions:read', 'extractions:write'] });
    const { syncRate } = await ask<{ syncRate: number }>(child, { do: 'sync', url: server.url, secret, scan, count: SYNC, inFlight: config.queueConcurrency });

    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
    loopDelay.enable();
    // Full collections of the main thread's heap pause every request it is answering.
    const collections = { full: 0, longestMs: 0 };
    const gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if ((entry as PerformanceEntry & { detail: { kind: number } }).detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.full += 1;
        collections.longestMs = Math.max(collections.longestMs, entry.duration);
      }
    });
    gc.observe({ entryTypes: ['gc'] });
    const busyBefore = performance.eventLoopUtilization();
    const queueStarted = performance.now();
    // The first BURST scans at once, the rest at twice the rate the workers read synchronously: the
    // queue grows until the last is sent, so the workers never wait for work, and those POSTs are
    // answered while it drains.
    const burst = Math.min(QUEUED, BURST);
    const { burst: burstLatencies, paced: latencies } = await ask<Queued>(child, { do: 'queue', burst, paced: QUEUED - burst, perSecond: 2 * syncRate });
    const unfinished = () =>
      server.store.db('extractions').where({ workspace_id: ws.id, status: 'processing' }).count({ n: '*' }).then(([r]) => Number(r.n));
    while ((await unfinished()) > 0) await new Promise((resolve) => setTimeout(resolve, DRAINED_POLL_MS));
    const queueRate = QUEUED / ((performance.now() - queueStarted) / 1000);
    const busy = performance.eventLoopUtilization(busyBefore);
    loopDelay.disable();
    gc.disconnect();
    const { meLatencies } = await ask<{ meLatencies: number[] }>(child, { do: 'stop-probe' });
    const [{ n: failed }] = await server.store.db('extractions').where({ workspace_id: ws.id, status: 'failed' }).count({ n: '*' });

    console.log(`\n${server.store.dialect}, queue ${config.redisUrl ? 'BullMQ' : 'in the database'}, OCR_WORKERS=${config.ocrWorkers}, QUEUE_CONCURRENCY=${config.queueConcurrency}, scan ${process.env.BENCH_SCAN ?? 'invoice'} (${Math.round((scan.length * 3) / 4 / 1024)} KiB)\n`);
    console.log('| measure | value | target |');
    console.log('|---|---|---|');
    console.log(`| synchronous, ${SYNC} scans | ${syncRate.toFixed(2)} scans/s | |`);
    console.log(`| queued, ${QUEUED} scans drained | ${queueRate.toFixed(2)} scans/s | |`);
    console.log(`| queued / synchronous | ${((100 * queueRate) / syncRate).toFixed(1)}% | >= 90% |`);
    console.log(`| POST to 202, the first ${burst} sent at once (four in flight), p50 / p99 | ${p50p99(burstLatencies)} | |`);
    console.log(`| POST to 202 while draining, the other ${latencies.length} at ${(2 * syncRate).toFixed(2)}/s, p50 / p99 | ${p50p99(latencies)} | p99 < 50 ms |`);
    console.log(`| GET /v1/me meanwhile, p50 / p99 | ${p50p99(meLatencies)} | |`);
    const late = (ns: number) => Math.max(0, ns / 1e6 - LOOP_SAMPLE_MS).toFixed(1);
    console.log(`| server's event-loop delay while draining, p50 / p99 / max | ${late(loopDelay.percentile(50))} / ${late(loopDelay.percentile(99))} / ${late(loopDelay.max)} ms | |`);
    console.log(`| server's main thread busy while draining | ${(100 * busy.utilization).toFixed(1)}%, ${(busy.active / QUEUED).toFixed(1)} ms a queued scan | |`);
    console.log(`| server's main thread: full collections while draining, longest pause of any collection | ${collections.full}, ${collections.longestMs.toFixed(1)} ms | |`);
    console.log(`| failed extractions | ${failed} | 0 |`);
  } finally {
    child.kill();
    await server.close();
    await database.drop();
  }
}

if (process.argv.includes(CLIENT)) client();
else await bench();
