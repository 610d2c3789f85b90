import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { openStore, type Store } from './store/index.js';
import { startInstance } from './store/instances.js';
import { IDEMPOTENCY_TTL_MS } from './store/idempotency.js';
import type { ExtractionInfo, Pipeline } from './extraction/pipeline.js';
import { startPipelineThread } from './extraction/pipeline-thread.js';
import { decodeFile } from './extraction/input.js';
import { extractionService, type ExtractionService } from './services/extractions.js';
import { templateService, type TemplateService } from './services/templates.js';
import { webhookService, type WebhookService } from './services/webhooks.js';
import { createTemplateRunner, type TemplateRunner } from './templates/runner.js';
import { databaseQueue } from './queue/database-queue.js';
import { bullmqQueue } from './queue/bullmq-queue.js';
import type { ExtractionQueue } from './queue/types.js';
import { startDispatcher, type Dispatcher } from './webhooks/dispatcher.js';

/**
 * What a process does with extractions: `all` serves the API and reads documents (the single-machine
 * default), `api` serves the API and queues every extraction for the workers (`ROLE=api`), `worker`
 * reads queued documents without serving HTTP (`docex worker`).
 */
export type Role = Config['role'] | 'worker';

export interface Runtime {
  store: Store;
  queue: ExtractionQueue;
  /** Null on an API-only instance, which reads no document itself. */
  pipeline: Pipeline | null;
  templates: TemplateService;
  webhooks: WebhookService;
  extractions: ExtractionService;
  /** Stops taking jobs, lets running ones finish (bounded), then closes every pool and connection. */
  close(): Promise<void>;
}

/** The queue: BullMQ when Redis is configured, else the database. */
async function openQueue(config: Config, store: Store, logger: Logger): Promise<ExtractionQueue> {
  const common = { jobs: store.jobs, concurrency: config.queueConcurrency, maxAttempts: config.queueMaxAttempts, logger };
  if (config.redisUrl) return bullmqQueue({ ...common, url: config.redisUrl, stalledMs: config.queueStalledMs });
  return databaseQueue({ ...common, instanceId: store.instanceId, pollMs: config.queuePollMs, staleMs: config.instanceStaleMs });
}

/**
 * Everything but HTTP: the store and this process's heartbeat in it, the pipeline's workers, the
 * queue, and the webhook sender. Shared by the server (`npm start`) and `docex worker`.
 */
export async function startRuntime(config: Config, role: Role, logger: Logger, onExtraction?: (info: ExtractionInfo) => void): Promise<Runtime> {
  const store = await openStore(config.databaseUrl, { cacheKeys: role !== 'worker' });
  const instance = await startInstance(
    {
      instanceId: store.instanceId,
      instances: store.instances,
      failInterrupted: (before) => store.extractions.failInterrupted(before),
      exclusive: store.dialect === 'sqlite',
      housekeeping: async (now) => {
        await store.idempotency.prune(now - IDEMPOTENCY_TTL_MS);
      },
    },
    config.instanceStaleMs,
    (count) => logger.warn({ count }, 'marked extractions of a stopped server as failed'),
    (err) => logger.error({ err }, 'instance heartbeat failed'),
  );
  const pipeline = role === 'api' ? null : startPipelineThread(config, { logger, onExtraction });
  const templateRunner: TemplateRunner = createTemplateRunner(config, logger);
  const templates = templateService(store, templateRunner);
  const webhooks = webhookService(store, { allowPrivate: config.webhookAllowPrivate });
  const dispatcher: Dispatcher = startDispatcher({
    webhooks: store.webhooks,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivate,
    retryBaseMs: config.webhookRetryBaseMs,
    retryWindowMs: config.webhookRetryWindowMs,
    concurrency: config.webhookConcurrency,
    pollMs: config.queuePollMs,
    logger,
  });
  const queue = await openQueue(config, store, logger);
  const extractions = extractionService({
    store,
    config,
    logger,
    queue,
    events: { announce: webhooks.announce, announced: dispatcher.wake },
    templates: templates.applier,
    extractor: {
      decode: (body) => decodeFile(body),
      extract: pipeline ? (file, languages) => pipeline.extract({ ...file, languages }) : null,
    },
  });
  if (pipeline) queue.work(extractions.jobHandler);
  return {
    store,
    queue,
    pipeline,
    templates,
    webhooks,
    extractions,
    async close() {
      await queue.close(config.shutdownTimeoutMs);
      await dispatcher.close();
      await Promise.all([pipeline?.close(), templateRunner.close()]);
      await instance.stop();
      await store.close();
    },
  };
}
