import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** How long a start waits for the first connection before serving anyway (limited requests then get 503). */
const FIRST_CONNECT_WAIT_MS = 3000;

/**
 * A Redis client for the rate-limit counters that fails fast while Redis is unreachable: no offline
 * queue, no retries of a failed command and a command timeout, so a request gets its 503 at once
 * instead of waiting. The client keeps reconnecting in the background (backoff capped at 2 s), so
 * the limiter recovers by itself when Redis returns.
 */
export async function openRedis(url: string, logger: Logger): Promise<Redis> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: true,
  });
  let wasReady = false;
  client.on('ready', () => {
    if (wasReady) logger.info('rate-limit store reconnected');
    wasReady = true;
  });
  // Without a listener ioredis reports every failed reconnection as an unhandled error.
  client.on('error', (err: Error) => {
    if (wasReady) logger.warn({ err: { message: err.message } }, 'rate-limit store error');
  });
  client.on('close', () => {
    if (wasReady) logger.debug('rate-limit store connection closed');
  });
  const first = client.connect().then(
    () => undefined,
    (err: Error) => logger.error({ err: { message: err.message } }, 'rate-limit store unreachable at start; limited requests get 503 until it is back'),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([first, new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_CONNECT_WAIT_MS)))]);
  clearTimeout(timer);
  return client;
}

/** Readiness probe: a PING that fails fast while disconnected. */
export async function pingRedis(client: Redis): Promise<void> {
  await client.ping();
}
