import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { createOcrPool } from '../../src/extraction/ocr-pool.js';
import { createWorkerPool } from '../../src/workers/pool.js';

/** Niceness of this process's threads, by thread id (Linux's /proc; field 19 of a thread's stat). */
function threadNiceness(): Map<string, number> {
  const niceness = new Map<string, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    niceness.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return niceness;
}

const own = os.getPriority();
const lowered = Math.min(19, own + 10);

describe.runIf(process.platform === 'linux')('worker threads run below the event loop', () => {
  it('a pool worker lowers its own thread, and the event loop keeps its priority', async () => {
    const pool = createWorkerPool({ name: 'test', entry: new URL('./test-worker.js', import.meta.url), workers: 1, queueMax: 1, heapMb: 64 });
    try {
      const job = await pool.acquire(10_000);
      expect(await job.call('niceness', null)).toBe(lowered);
      job.release();
      expect(os.getPriority()).toBe(own);
    } finally {
      await pool.close();
    }
  });

  it("each of tesseract.js's OCR threads runs lowered", async () => {
    const before = [...threadNiceness().values()].filter((n) => n === lowered).length;
    const pool = createOcrPool({ workers: 2, queueMax: 1, timeoutMs: 60_000 });
    try {
      const started = () => [...threadNiceness().values()].filter((n) => n === lowered).length - before;
      // Each thread lowers itself once it runs, before its worker is ready.
      for (const deadline = Date.now() + 30_000; (started() < 2 || !pool.ready()) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(started()).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
