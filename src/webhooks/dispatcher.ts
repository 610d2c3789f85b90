import type { Logger } from '../logger.js';
import type { WebhooksRepository } from '../store/webhooks.js';
import { sendEvent } from './send.js';

export interface DispatcherOptions {
  webhooks: WebhooksRepository;
  timeoutMs: number;
  allowPrivate: boolean;
  /** First retry delay; each next one doubles. */
  retryBaseMs: number;
  /** Attempts stop once the next one would be this long after the event. */
  retryWindowMs: number;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  pollMs: number;
  logger: Logger;
}

export interface Dispatcher {
  /** Looks for due deliveries now (an extraction of this process just finished). */
  wake(): void;
  close(): Promise<void>;
}

/** When attempt `n + 1` is due after `n` failed ones, or null when the retry window is over. */
export function nextAttemptAt(failedAttempts: number, eventAt: number, now: number, baseMs: number, windowMs: number): number | null {
  const next = now + baseMs * 2 ** (failedAttempts - 1);
  return next - eventAt > windowMs ? null : next;
}

/**
 * Sends webhook deliveries in the background, apart from the extractions: an event is only a row
 * written when its extraction finished, and this loop sends due rows, each bounded by its timeout,
 * at most `concurrency` at a time. A slow or dead receiver therefore holds a delivery slot, never a
 * worker. Deliveries are held for the length of an attempt while sent, so that processes sharing the
 * database do not send the same one twice, and taken again if their sender died.
 */
export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { webhooks, logger } = options;
  const inFlight = new Set<Promise<void>>();
  let closed = false;
  let wakeUp: (() => void) | null = null;
  let timer: NodeJS.Timeout | undefined;

  async function deliver(delivery: Awaited<ReturnType<WebhooksRepository['claimDue']>>[number]): Promise<void> {
    const result = await sendEvent(delivery.url, delivery.secret, delivery.payload, options);
    const attempts = [...delivery.attempts, { attempted_at: new Date().toISOString(), ...result }];
    const ok = result.status_code !== null && result.status_code >= 200 && result.status_code < 300;
    const next = ok ? null : nextAttemptAt(attempts.length, Date.parse(delivery.created_at), Date.now(), options.retryBaseMs, options.retryWindowMs);
    const state = ok ? 'succeeded' : next === null ? 'failed' : 'pending';
    if (!ok) logger.info({ delivery_id: delivery.id, attempt: attempts.length, status_code: result.status_code, error: result.error, state }, 'webhook delivery attempt failed');
    await webhooks.recordAttempt(delivery.id, attempts, { state, nextAttemptAt: next });
  }

  async function loop(): Promise<void> {
    while (!closed) {
      const room = options.concurrency - inFlight.size;
      let claimed: Awaited<ReturnType<WebhooksRepository['claimDue']>> = [];
      if (room > 0) {
        try {
          // Held for the attempt's timeout and a margin; a sender that dies lets it go after that.
          claimed = await webhooks.claimDue(Date.now(), options.timeoutMs + 5_000, room);
        } catch (err) {
          logger.error({ err }, 'could not read due webhook deliveries');
        }
      }
      for (const delivery of claimed) {
        const running = deliver(delivery)
          .catch((err: unknown) => logger.error({ err, delivery_id: delivery.id }, 'could not record a webhook attempt'))
          .finally(() => {
            inFlight.delete(running);
            wakeUp?.();
          });
        inFlight.add(running);
      }
      if (claimed.length === room && room > 0) continue;
      if (closed) break;
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        timer = setTimeout(resolve, options.pollMs);
      });
      clearTimeout(timer);
      wakeUp = null;
    }
  }

  const running = loop();
  return {
    wake: () => wakeUp?.(),
    async close() {
      closed = true;
      wakeUp?.();
      await running;
      await Promise.all(inFlight);
    },
  };
}
