import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentError } from '../../src/errors.js';
import { createWorkerPool, WorkerStopped, type WorkerPool } from '../../src/workers/pool.js';

const entry = new URL('./test-worker.js', import.meta.url);

async function stoppedBy(promise: Promise<unknown>): Promise<WorkerStopped> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkerStopped);
  return err as WorkerStopped;
}

describe('worker pool', () => {
  let pool: WorkerPool;

  beforeAll(() => {
    pool = createWorkerPool({ name: 'test', entry, workers: 1, queueMax: 1, heapMb: 64 });
  });
  afterAll(() => pool.close());

  it('answers requests, with the handler own errors and moved buffers', async () => {
    const job = await pool.acquire(10_000);
    expect(await job.call('echo', { a: [1, 'b'] })).toEqual({ a: [1, 'b'] });
    expect(Array.from(await job.call<Uint8Array>('bytes', 3))).toEqual([7, 7, 7]);
    const refused = await job.call('refuse', null).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DocumentError);
    expect(refused).toMatchObject({ code: 'unreadable_document', message: 'no such thing', pages: 2 });
    job.release();
  });

  it('stops a job past its budget, keeps what it last reported, and replaces the worker', async () => {
    const restarts = pool.restarts();
    const job = await pool.acquire(300);
    const err = await stoppedBy(job.call('spin', 42));
    expect(err.reason).toBe('timeout');
    expect(job.progress[0]).toBe(42);
    job.release();
    const next = await pool.acquire(10_000);
    expect(await next.call('echo', 'still serving')).toBe('still serving');
    next.release();
    expect(pool.restarts()).toBe(restarts + 1);
  });

  it('counts only the time the worker spends on the job, not the time between its requests', async () => {
    const job = await pool.acquire(1_000);
    for (let i = 0; i < 3; i += 1) {
      expect(await job.call('wait', 150)).toBe(150);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const err = await stoppedBy(job.call('wait', 5_000));
    expect(err.reason).toBe('timeout');
    job.release();
  });

  it('replaces a worker that runs out of heap or exits, failing only its job', async () => {
    let job = await pool.acquire(60_000);
    expect((await stoppedBy(job.call('hoard', null))).reason).toBe('out_of_memory');
    job.release();
    job = await pool.acquire(60_000);
    expect((await stoppedBy(job.call('exit', null))).reason).toBe('crashed');
    job.release();
    job = await pool.acquire(10_000);
    expect(await job.call('echo', 1)).toBe(1);
    job.release();
  });

  it('bounds its queue: past queueMax a job is refused with 503 and Retry-After', async () => {
    const busy = await pool.acquire(10_000);
    const waiting = pool.acquire(10_000);
    expect(pool.queueDepth()).toBe(1);
    const refused = await pool.acquire(10_000).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(Number((refused as { headers: Record<string, string> }).headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    busy.release();
    const next = await waiting;
    expect(await next.call('echo', 'served in turn')).toBe('served in turn');
    next.release();
  });

  it('hands a worker on only once the requests of its last job have been answered', async () => {
    const first = await pool.acquire(10_000);
    const slow = first.call('wait', 300);
    first.release();
    const second = await pool.acquire(10_000);
    expect(await Promise.race([slow.then(() => 'first job done'), second.call('echo', 'second job').then(() => 'second job ran first')])).toBe('first job done');
    second.release();
  });

  it('on close fails the running job and those waiting, and takes no more', async () => {
    const closing = createWorkerPool({ name: 'closing', entry, workers: 1, queueMax: 4, heapMb: 64 });
    const job = await closing.acquire(60_000);
    const running = stoppedBy(job.call('spin', 1));
    const waiting = stoppedBy(closing.acquire(60_000));
    await closing.close();
    expect((await running).reason).toBe('closed');
    expect((await waiting).reason).toBe('closed');
    expect((await stoppedBy(closing.acquire(1_000))).reason).toBe('closed');
  });
});
