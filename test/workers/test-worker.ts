import os from 'node:os';
import { DocumentError } from '../../src/errors.js';
import { serve, Transfer } from '../../src/workers/serve.js';

/** Jobs that misbehave in each way a pool must survive, and one that tells the thread's niceness. */
serve({
  echo: (payload: unknown) => payload,
  niceness: () => os.getPriority(),
  async wait(ms: number) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return ms;
  },
  spin(step: number, progress: Int32Array) {
    Atomics.store(progress, 0, step);
    for (;;);
  },
  hoard() {
    const kept: number[][] = [];
    for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => i));
  },
  exit: () => process.exit(3),
  refuse: () => {
    throw new DocumentError('unreadable_document', 'no such thing', 2);
  },
  bytes: (size: number) => {
    const bytes = new Uint8Array(size).fill(7);
    return new Transfer(bytes, [bytes.buffer]);
  },
});
