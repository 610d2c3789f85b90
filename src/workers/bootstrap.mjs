// Plain JavaScript on purpose: a worker thread does not inherit the tsx loader the service runs
// under (`tsx src/main.ts`, `node --import tsx`, tsx's `register()` in bin/docex.js or vitest), so
// it registers tsx itself before importing its TypeScript entry. `--import tsx` in the worker's
// execArgv does not work on Node 20: tsx's loader skips registering outside the main thread.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
