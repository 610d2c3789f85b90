import { parseRetryAfter } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** The longest wait the client accepts; a `Retry-After` beyond it is surfaced as an error at once. */
  maxDelayMs: number;
}

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const RETRYABLE = new Set([429, 503]);

/**
 * A fetch that waits `Retry-After` and tries again on 429 and 503, within the bounds given. Each attempt
 * sends a clone of the request, as a body can be read only once.
 */
export function retryingFetch(retry: RetryOptions, sleep: Sleep, inner: typeof fetch = fetch): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const response = await inner(request.clone());
      if (!RETRYABLE.has(response.status) || attempt >= retry.maxRetries) return response;
      const seconds = parseRetryAfter(response.headers.get('retry-after'));
      if (seconds === null || seconds * 1000 > retry.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(seconds * 1000);
    }
  };
}
