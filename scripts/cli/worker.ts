import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startRuntime } from '../../src/runtime.js';
import { UsageError } from './usage.js';

/** Time past SHUTDOWN_TIMEOUT_MS for closing the pools and the database once jobs are left. */
const SHUTDOWN_GRACE_MS = 2_000;

/**
 * `docex worker`: reads queued extractions (and sends webhooks) without an HTTP server, so that OCR
 * capacity grows apart from the API instances (`ROLE=api`). Runs until SIGTERM or SIGINT; jobs still
 * running then get SHUTDOWN_TIMEOUT_MS to finish, and those that do not are taken by another worker.
 */
export async function worker(args: string[]): Promise<number> {
  if (args.length) throw new UsageError(`docex worker takes no arguments (got ${args.join(' ')}); it is configured by the environment`);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(`configuration error: ${err.message}`);
    throw err;
  }
  // A SQLite file belongs to one server, which reads its documents itself (and fails, on start, what it finds unfinished).
  if (config.databaseUrl.startsWith('sqlite:')) throw new UsageError('docex worker needs DATABASE_URL on PostgreSQL, shared with the API instances');
  const logger = createLogger(config.logLevel);
  const runtime = await startRuntime(config, 'worker', logger);
  logger.info({ database: runtime.store.dialect, queue: runtime.queue.kind, concurrency: config.queueConcurrency, instance: runtime.store.instanceId }, 'docex worker ready');
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'worker stopping');
  setTimeout(() => {
    logger.error({ signal }, 'worker shutdown did not finish in time; exiting');
    process.exit(1);
  }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
  await runtime.close();
  logger.info('docex worker stopped');
  return 0;
}
