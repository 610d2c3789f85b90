import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import type { ExtractionsRepository } from '../store/extractions.js';

const DAY_MS = 86_400_000;
/** Extractions deleted per transaction: short enough that requests waiting on the database barely notice. */
const BATCH = 200;

export interface Retention {
  /** One sweep now: deletes every finished extraction older than the retention period; returns how many. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Deletes extractions older than `days` (with their document text and upload) in the background:
 * a sweep at start and then every `intervalMs`, in small batches with the event loop free between
 * them, one sweep at a time. Several servers on one database may sweep at once; a row deleted
 * twice is simply not there the second time.
 */
export function startRetention(extractions: Pick<ExtractionsRepository, 'deleteCreatedBefore'>, days: number, logger: Logger, intervalMs = 3_600_000): Retention {
  let running: Promise<number> | null = null;
  let stopped = false;

  async function run(): Promise<number> {
    const before = new Date(Date.now() - days * DAY_MS).toISOString();
    let total = 0;
    for (;;) {
      if (stopped) return total;
      const deleted = await extractions.deleteCreatedBefore(before, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
      await yieldToRequests();
    }
    if (total) logger.info({ deleted: total, retention_days: days }, 'deleted extractions past the retention period');
    return total;
  }

  function sweep(): Promise<number> {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  }

  const background = () =>
    void sweep().catch((err: unknown) => logger.error({ err }, 'retention sweep failed'));
  const timer = setInterval(background, intervalMs);
  timer.unref();
  background();

  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
