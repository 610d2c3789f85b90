// Plain JavaScript on purpose: a worker thread does not inherit the tsx loader the service runs
// under (`tsx src/main.ts`, `node --import tsx`, tsx's `register()` in bin/docex.js or vitest), so
// it registers tsx itself before importing its TypeScript entry. `--import tsx` in the worker's
// execArgv does not work on Node 20: tsx's loader skips registering outside the main thread.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// Large JavaScript dependencies are loaded before tsx is, which would transform them on every
// start: pdf.js took 2.4 s and 355 MB through tsx, 0.3 s and 52 MB without (measured).
for (const specifier of workerData.preload) await import(specifier);
register();
await import(workerData.entry);
