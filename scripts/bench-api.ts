/**
 * Measures the API's per-request overhead: autocannon against GET /v1/me (authentication, rate
 * limiting, validation, access log, metrics) on an Enterprise key with limits out of reach, against a
 * bare Koa hello-world, with the same connections and duration. Each target runs in its own child
 * process so that the load generator does not share its event loop.
 *
 *   npm run bench:api [-- --duration 10 --connections 50]
 *
 * Runs on SQLite always, and on PostgreSQL + Redis when BENCH_DATABASE_URL (else TEST_DATABASE_URL) and
 * BENCH_REDIS_URL (else TEST_REDIS_URL) reach them; a fresh PostgreSQL database is made and dropped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import knex from 'knex';
import Koa from 'koa';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { openStore } from '../src/store/index.js';
import { requestId } from '../src/http/request-id.js';
import { securityHeaders } from '../src/http/security-headers.js';
import { rateLimitHeaders } from '../src/http/rate-limit.js';
import { median } from '../src/extraction/median.js';

/** The part of autocannon's (untyped) API used here. */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;

const SERVE = '--serve';
const self = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(self), '..');

/** Child mode: serve one target and print its URL as one JSON line. */
async function serve(target: string): Promise<void> {
  if (target === 'koa') {
    const app = new Koa();
    app.use(async (ctx, next) => {
      if (ctx.path === '/headers') return next();
      ctx.body = { hello: 'world' };
    });
    // /headers: what docex's answer to GET /v1/me carries, without the work behind it (request id,
    // security and rate-limit headers, a body of the same shape), to show what sending that costs.
    const limits = { limit: 1_000_000_000, remaining: 999_999_999, reset: 1_795_000_000 };
    app.use(requestId);
    app.use(securityHeaders([]));
    app.use((ctx) => {
      ctx.set(rateLimitHeaders({ allowed: true, minute: limits, day: limits }));
      ctx.body = {
        api_key: { id: 'key_01KAQ5Z1J7R7ZK3VQ6C4N0X2M9', name: 'bench', prefix: 'dx_live_B1xS', scopes: [], workspace_id: 'ws_01KAQ5Z1J7R7ZK3VQ6C4N0X2M9' },
        workspace: { id: 'ws_01KAQ5Z1J7R7ZK3VQ6C4N0X2M9', name: 'bench', plan: 'enterprise', limits: { per_minute: 1_000_000_000, per_day: 1_000_000_000 } },
        request_id: ctx.state.requestId,
      };
    });
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
    });
    return;
  }
  const running = await startServer(loadConfig({ ...process.env, PORT: '0' }));
  process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
  process.once('SIGTERM', () => void running.close().then(() => process.exit(0)));
}

interface Target {
  url: string;
  child: ChildProcess;
}

function startTarget(target: string, env: Record<string, string>): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', self, SERVE, target], {
    cwd: root,
    // The access log goes to /dev/null: written as in production, not read.
    env: { ...process.env, OCR_WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (!line.startsWith('{"url"')) return;
      lines.close();
      child.stdout!.resume();
      resolve({ url: (JSON.parse(line) as { url: string }).url, child });
    });
    child.once('exit', (code) => reject(new Error(`${target} exited with ${code} before listening`)));
  });
}

async function stopTarget(t: Target): Promise<void> {
  const exited = new Promise((resolve) => t.child.once('exit', resolve));
  t.child.kill('SIGTERM');
  await exited;
}

interface Figures {
  rps: number;
  /** The server process's CPU time per request (all its threads), when /proc tells it. */
  cpuUs: number | null;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** One load run, kept raw so that runs taken in turn can be added up. */
interface Run {
  requests: number;
  seconds: number;
  cpuSeconds: number | null;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** CPU seconds (user + system, every thread) the process has used so far, where Linux's /proc tells. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, in clock ticks of 1/100 s (USER_HZ on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

async function load(target: Target, path: string, headers: Record<string, string>, connections: number, duration: number): Promise<Run> {
  const before = cpuSeconds(target.child.pid!);
  const result = await autocannon({ url: `${target.url}${path}`, headers, connections, duration });
  const after = cpuSeconds(target.child.pid!);
  const cpu = before === null || after === null ? null : after - before;
  return { requests: result.requests.total, seconds: duration, cpuSeconds: cpu, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

/** Runs taken in turn, added up: requests and CPU summed, latencies the median run's. */
function figures(runs: Run[]): Figures {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const cpu = runs.some((r) => r.cpuSeconds === null) ? null : runs.reduce((n, r) => n + r.cpuSeconds!, 0);
  return {
    rps: requests / runs.reduce((n, r) => n + r.seconds, 0),
    cpuUs: cpu === null ? null : (1e6 * cpu) / requests,
    p50: median(runs.map((r) => r.p50))!,
    p99: median(runs.map((r) => r.p99))!,
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

const ROUNDS = 5;

interface Load {
  target: Target;
  path: string;
  headers: Record<string, string>;
}

/**
 * Each load for `duration` seconds in all, in ROUNDS turns (a, b, a, b, ...) rather than one after the
 * other, so that the machine's speed drifting during the run (seen here: 2x between minutes on a
 * shared VM) reaches docex and its baseline alike and leaves their ratio alone.
 */
async function inTurn(loads: Load[], connections: number, duration: number): Promise<Figures[]> {
  const runs: Run[][] = loads.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, l] of loads.entries()) runs[i]!.push(await load(l.target, l.path, l.headers, connections, duration / ROUNDS));
  }
  return runs.map(figures);
}


interface Setup {
  name: string;
  env: Record<string, string>;
  databaseUrl: string;
  drop(): Promise<void>;
}

function sqliteSetup(): Setup {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-bench-'));
  const databaseUrl = `sqlite:${path.join(dir, 'docex.sqlite')}`;
  return { name: 'SQLite', databaseUrl, env: { DATABASE_URL: databaseUrl }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

async function postgresRedisSetup(): Promise<Setup | string> {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  if (!serverUrl || !redisUrl) return 'set BENCH_DATABASE_URL/TEST_DATABASE_URL and BENCH_REDIS_URL/TEST_REDIS_URL to include PostgreSQL + Redis';
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  const admin = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  const name = `docex_bench_${randomBytes(6).toString('hex')}`;
  try {
    await redis.connect();
    await redis.ping();
    await admin.raw('CREATE DATABASE ??', [name]);
  } catch (err) {
    return `PostgreSQL or Redis not reachable (${(err as Error).message})`;
  } finally {
    redis.disconnect();
    await admin.destroy();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name: 'PostgreSQL + Redis',
    databaseUrl: url.toString(),
    env: { DATABASE_URL: url.toString(), REDIS_URL: redisUrl },
    async drop() {
      const dropper = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
      await dropper.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
      await dropper.destroy();
    },
  };
}

/** An Enterprise workspace with limits nobody reaches in a benchmark, and a key on it. */
async function enterpriseKey(databaseUrl: string): Promise<string> {
  const store = await openStore(databaseUrl);
  try {
    const ws = await store.workspaces.create({ name: 'bench', plan: 'enterprise', per_minute: 1_000_000_000, per_day: 1_000_000_000 });
    return (await store.apiKeys.create({ workspace_id: ws.id, name: 'bench', scopes: [] })).secret;
  } finally {
    await store.close();
  }
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

const cpu = (f: Figures) => (f.cpuUs === null ? 'n/a' : `${f.cpuUs.toFixed(0)} us`);
const cpuShare = (f: Figures, bare: Figures) => (f.cpuUs === null || bare.cpuUs === null ? 'n/a' : `${((100 * bare.cpuUs) / f.cpuUs).toFixed(0)}%`);

function row(name: string, f: Figures, bare: Figures): string[] {
  return [name, f.rps.toFixed(0), ms(f.p50), ms(f.p99), String(f.non2xx), String(f.errors), `${((100 * f.rps) / bare.rps).toFixed(0)}%`, cpu(f), cpuShare(f, bare)];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  console.log(`autocannon: ${connections} connections, ${duration} s per target, GET /v1/me vs bare Koa\n`);

  const koa = await startTarget('koa', {});
  const bareLoad: Load = { target: koa, path: '/', headers: {} };
  const headersLoad: Load = { target: koa, path: '/headers', headers: {} };
  const setups: Setup[] = [sqliteSetup()];
  const pg = await postgresRedisSetup();
  if (typeof pg === 'string') console.log(`PostgreSQL + Redis skipped: ${pg}\n`);
  else setups.push(pg);

  const rows: string[][] = [['target', 'req/s', 'p50', 'p99', 'non-2xx', 'errors', 'vs bare Koa', 'server CPU/request', 'vs bare Koa (CPU)']];
  try {
    for (const setup of setups) {
      try {
        const key = await enterpriseKey(setup.databaseUrl);
        const docex = await startTarget('docex', { ...setup.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info' });
        const me: Load = { target: docex, path: '/v1/me', headers: { Authorization: `Bearer ${key}` } };
        // The same middleware chain without authentication, limits or the database: the framework's share.
        const health: Load = { target: docex, path: '/healthz', headers: {} };
        const first = setup === setups[0];
        const loads = first ? [bareLoad, me, headersLoad, health] : [bareLoad, me];
        await load(me.target, me.path, me.headers, connections, 1);
        const [bare, meFigures, ...others] = await inTurn(loads, connections, duration);
        rows.push(row(`bare Koa hello-world (in turn with the next rows)`, bare!, bare!));
        rows.push(row(`docex GET /v1/me, ${setup.name}`, meFigures!, bare!));
        if (first) {
          rows.push(row('Koa sending only the headers and body of /v1/me', others[0]!, bare!));
          rows.push(row('docex GET /healthz (no key, no database)', others[1]!, bare!));
        }
        await stopTarget(docex);
      } finally {
        await setup.drop();
      }
    }
  } finally {
    await stopTarget(koa);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(rows[0]));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows.slice(1)) console.log(line(r));
  console.log(`\nTarget: docex at 50% or more of bare Koa. Each target is loaded for ${duration} s in all, in ${ROUNDS} turns with the`);
  console.log('others; a warm-up second precedes each docex server\'s runs.');
  console.log('Server CPU/request is the target process\'s CPU time (every thread) over the requests it answered:');
  console.log('unlike req/s it does not depend on whether the load generator, on the same cores, kept the server busy.');
}

if (process.argv[2] === SERVE) await serve(process.argv[3]);
else await main();
