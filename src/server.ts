import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics } from './metrics.js';
import { loadApiDocument } from './openapi.js';
import { createRateLimiter, systemClock, type Clock } from './limits/rate-limiter.js';
import { memoryCounters, postgresCounters, redisCounters, sqliteCounters, type CounterBackend } from './limits/counters.js';
import { openRedis, pingRedis } from './limits/redis.js';
import { startRetention } from './services/retention.js';
import { answerClientError } from './http/client-error.js';
import { bootstrapFirstKey, type FirstKey } from './bootstrap.js';
import { createApp } from './app.js';
import { startRuntime } from './runtime.js';
import type { Store } from './store/index.js';

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  logger: Logger;
  firstKey: FirstKey | null;
  /** Stops accepting, lets in-flight requests finish (bounded by SHUTDOWN_TIMEOUT_MS), then closes everything. */
  close(): Promise<void>;
}

export interface ServerOptions {
  clock?: Clock;
  logger?: Logger;
}

/** The composition root: builds every module from the configuration and starts listening. */
export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const runtime = await startRuntime(config, config.role, logger, ({ fileType, path, ms, secondReading }) => {
    metrics.extractionDuration.observe({ file_type: fileType, path }, ms / 1000);
    if (secondReading) metrics.secondReadings.inc();
  });
  const { store, pipeline } = runtime;
  const firstKey = await bootstrapFirstKey(store);
  const retention = config.retentionDays === null ? null : startRetention(store.extractions, config.retentionDays, logger);

  const clock = options.clock ?? systemClock;
  // Redis when configured (shared by every instance), else the database the instances already share.
  const redis = config.redisUrl ? await openRedis(config.redisUrl, logger) : null;
  let counters: CounterBackend;
  if (redis) counters = redisCounters(redis);
  else if (store.dialect === 'postgres') counters = await postgresCounters(store.db);
  else counters = await sqliteCounters(store.db);
  const limiter = createRateLimiter(counters, clock);
  const failedAuthLimiter = createRateLimiter(memoryCounters(), clock);
  const metrics = createMetrics(() => pipeline?.queueDepth() ?? 0);

  const app = await createApp({
    config,
    logger,
    metrics,
    document: loadApiDocument(),
    store,
    limiter,
    clock,
    failedAuthLimiter,
    extractions: runtime.extractions,
    templates: runtime.templates,
    webhooks: runtime.webhooks,
    readiness: { database: () => store.ping(), rateLimitStore: redis ? () => pingRedis(redis) : null, ocrReady: pipeline ? () => pipeline.ready() : null },
  });

  const server = http.createServer(app.callback());
  server.on('clientError', answerClientError);
  // Large uploads on slow links must not be cut off by Node's default 5-minute request timeout either.
  server.requestTimeout = 10 * 60_000;
  // Idle keep-alive connections outlive the clients' and proxies' own idle timeouts (60 s for common load
  // balancers, 4 s for undici), so that the client, not the server, hangs up: a server closing first
  // races a request being sent on the same connection, which the client sees as a dropped request.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // While stopping, responses ask keep-alive clients to hang up, so that the stop does not wait out
  // their idle keep-alive timeout once the requests in flight are answered.
  const unanswered = new Set<http.ServerResponse>();
  let draining = false;
  server.on('request', (_req, res: http.ServerResponse) => {
    if (draining) res.setHeader('Connection', 'close');
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, database: store.dialect, rate_limit_store: redis ? 'redis' : store.dialect, queue: runtime.queue.kind, role: config.role, instance: store.instanceId }, 'docex listening');

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    store,
    logger,
    firstKey,
    close() {
      closing ??= (async () => {
        draining = true;
        for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
        await stopped;
        clearTimeout(timer);
        await retention?.stop();
        await counters.close();
        await runtime.close();
        await redis?.quit().catch(() => redis.disconnect());
        logger.info('docex stopped');
      })();
      return closing;
    },
  };
}
