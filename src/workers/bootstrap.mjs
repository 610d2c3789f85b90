// Plain JavaScript on purpose: run from sources, a worker thread does not inherit the tsx loader
// the service runs under (`node --import tsx`, vitest), so it registers tsx itself before importing
// its TypeScript entry. `--import tsx` in the worker's execArgv does not work on Node 20: tsx's
// loader skips registering outside the main thread. Run from dist/, the entry is JavaScript and
// tsx is not loaded at all.
import { workerData } from 'node:worker_threads';
import { lowerThisThread } from './background-priority.mjs';

if (workerData.background) lowerThisThread();

// Large JavaScript dependencies are loaded before tsx is, which would transform them on every
// start: pdf.js took 2.4 s and 355 MB through tsx, 0.3 s and 52 MB without (measured). From dist/
// they are loaded here too, so that a worker is ready once its first job would not pay for them.
for (const specifier of workerData.preload) await import(specifier);
if (workerData.entry.endsWith('.ts')) (await import('tsx/esm/api')).register();
await import(workerData.entry);
