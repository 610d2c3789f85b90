import { Worker } from 'node:worker_threads';

const BOOTSTRAP = new URL('./bootstrap.mjs', import.meta.url);
/**
 * Whether this module, and with it those that name the workers' entries, runs from its TypeScript
 * source (the tests, tsx) or from the build in dist/ (`npm start`): a worker then loads its entry's
 * source through ./bootstrap.mjs's tsx, or the compiled file.
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

export interface ThreadOptions {
  /** JavaScript modules (package specifiers) to load before the entry, and before the TypeScript loader, see ./bootstrap.mjs. */
  preload?: string[];
  /** More `workerData` for the entry. */
  data?: Record<string, unknown>;
  /** Old-generation heap, MB; without it, Node's default. */
  heapMb?: number;
  /** Whether the thread runs below the event loop's CPU priority (./background-priority.mjs); by default it does. */
  background?: boolean;
}

/**
 * A worker thread running `entry`, named as an import names a module: `.js`, which is the compiled
 * file in dist/ and stands for its `.ts` source when running from sources.
 */
export function startThread(entry: URL, { preload = [], data = {}, heapMb, background = true }: ThreadOptions = {}): Worker {
  const source = FROM_SOURCES ? new URL(entry.href.replace(/\.js$/, '.ts')) : entry;
  return new Worker(BOOTSTRAP, {
    workerData: { ...data, entry: source.href, preload, background },
    ...(heapMb ? { resourceLimits: { maxOldGenerationSizeMb: heapMb } } : {}),
    // Not the process's own flags (an inspector port, tsx's loader, a test runner's): the bootstrap sets up what the worker needs.
    execArgv: [],
  });
}
