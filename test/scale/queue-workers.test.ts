import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { verifyWebhookSignature } from '../../src/client/index.js';
import { databases, testRedisUrl, type TestDatabase } from '../store/databases.js';
import { renderPage, smallInvoicePdf } from '../fixtures/documents.js';
import { startReceiver, type Receiver } from '../async/receiver.js';
import { freePort, startRedis, startServerProcess, startWorkerProcess, type RedisProcess, type ServerProcess } from './processes.js';

const postgres = databases.find((d) => d.name === 'postgres');
const EXTRACTIONS = 200;

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, ms = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    value = await probe();
  }
  return value;
}

// A private redis-server, so that the queue's keys are this test's alone; TEST_REDIS_URL says Redis is there to use.
describe.runIf(postgres && testRedisUrl())('two API instances and two docex workers on PostgreSQL and Redis', () => {
  let database: TestDatabase;
  let store: Store;
  let redis: RedisProcess;
  let receiver: Receiver;
  const processes: ServerProcess[] = [];

  beforeAll(async () => {
    database = await postgres!.create();
    store = await openStore(database.url);
    redis = await startRedis(await freePort());
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    for (const p of processes) await p.stop();
    await receiver?.close();
    await redis?.stop();
    await store?.close();
    await database?.drop();
  });

  it(`completes ${EXTRACTIONS} queued scans (and a synchronous one) exactly once with a worker SIGKILLed mid-way, and delivers every webhook signed`, async () => {
    const env = { DATABASE_URL: database.url, REDIS_URL: redis.url, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' };
    const workerEnv = { ...env, QUEUE_CONCURRENCY: '2', QUEUE_STALLED_MS: '3000', LOG_LEVEL: 'info' };
    const started = await Promise.all([
      startServerProcess({ ...env, ROLE: 'api', LOG_LEVEL: 'info' }),
      startServerProcess({ ...env, ROLE: 'api', LOG_LEVEL: 'info' }),
      startWorkerProcess(workerEnv),
      startWorkerProcess(workerEnv),
    ]);
    processes.push(...started);
    const [apiA, apiB, doomed, survivor] = started;

    const ws = await store.workspaces.create({ name: 'load', plan: 'enterprise', per_minute: 100_000, per_day: 1_000_000 });
    const { secret: key } = await store.apiKeys.create({ workspace_id: ws.id, name: 'k', scopes: ['extractions:read', 'extractions:write', 'webhooks:write'] });
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const hook = await fetch(`${apiA.url}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: `${receiver.url}/docex`, events: ['extraction.completed', 'extraction.failed'] }) });
    expect(hook.status).toBe(201);
    const { secret } = (await hook.json()) as { secret: string };

    // A receipt-sized page at 150 dpi, so that OCR takes a fraction of a second.
    const scan = (await renderPage(await smallInvoicePdf(), 150)).toString('base64');
    // A synchronous request to an API-only instance waits for a worker to read its document.
    const sync = await fetch(`${apiB.url}/v1/extractions`, { method: 'POST', headers, body: JSON.stringify({ file: scan, file_name: 'sync.png' }) });
    expect(sync.status).toBe(201);
    const synchronous = (await sync.json()) as { id: string; status: string; data: Record<string, string> };
    expect(synchronous).toMatchObject({ status: 'completed', data: { invoice_number: 'INV-77' } });
    const ids: string[] = [synchronous.id];
    for (let batch = 0; batch < EXTRACTIONS; batch += 20) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          fetch(`${(batch + i) % 2 ? apiB.url : apiA.url}/v1/extractions`, {
            method: 'POST',
            headers: { ...headers, Prefer: 'respond-async' },
            body: JSON.stringify({ file: scan, file_name: `scan-${batch + i}.png` }),
          }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(202);
        ids.push(((await answer.json()) as { id: string }).id);
      }
    }

    const finished = () => store.db('extractions').where({ workspace_id: ws.id }).whereNot({ status: 'processing' }).count({ n: '*' }).then(([r]) => Number(r.n));
    // Killed while both of its job slots are busy: well after the first completions, well before the last.
    await until(finished, (n) => n >= 21, 120_000);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const done = await until(finished, (n) => n >= EXTRACTIONS + 1, 240_000);
    expect(done).toBe(EXTRACTIONS + 1);

    const rows = await store.db('extractions').where({ workspace_id: ws.id }).select('id', 'status', 'credits_used');
    expect(rows).toHaveLength(EXTRACTIONS + 1);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(ids));
    expect(rows.filter((r) => r.status !== 'completed')).toEqual([]);
    expect(rows.every((r) => Number(r.credits_used) === 1)).toBe(true);
    // The killed worker held jobs: the survivor found them stalled and they were read again.
    expect(survivor.logs.filter((l) => l.msg === 'extraction job stalled (its worker stopped); queued again').length).toBeGreaterThan(0);
    // A worker removes a job just after committing its outcome, so the last one may still be going.
    const jobsLeft = () => store.db('extraction_jobs').count({ n: '*' }).then(([r]) => Number(r.n));
    expect(await until(jobsLeft, (n) => n === 0, 10_000)).toBe(0);

    // One event per extraction, each delivered (a repeat of the same event would be the at-least-once
    // delivery promise, but a second event for one extraction would be a second completion).
    await until(async () => receiver.received.length, (n) => n >= EXTRACTIONS + 1, 60_000);
    const events = receiver.received.map((r) => verifyWebhookSignature(r.body, r.signature, secret));
    const eventsByExtraction = new Map<string, Set<string>>();
    for (const e of events) {
      expect(e.type).toBe('extraction.completed');
      eventsByExtraction.set(e.data.extraction.id, (eventsByExtraction.get(e.data.extraction.id) ?? new Set()).add(e.id));
    }
    expect(new Set(eventsByExtraction.keys())).toEqual(new Set(ids));
    expect([...eventsByExtraction.values()].every((s) => s.size === 1)).toBe(true);
    const deliveries = await store.db('webhook_deliveries').select('state');
    expect(deliveries).toHaveLength(EXTRACTIONS + 1);
    expect(deliveries.every((d) => d.state === 'succeeded')).toBe(true);
  }, 480_000);
});
