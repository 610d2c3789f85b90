import http from 'node:http';
import https from 'node:https';
import { guardedLookup } from './address.js';
import { signatureHeader } from './signature.js';

export interface AttemptResult {
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * POSTs a signed event and reports how it went. Never throws and never takes longer than `timeoutMs`:
 * a receiver that hangs, trickles its answer or redirects is a failed attempt, nothing more. Redirects
 * are not followed (the address check would not see where they lead); the answer's body is discarded.
 */
export function sendEvent(url: string, secret: string, payload: string, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status_code: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status_code, error, duration_ms: elapsed() });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish(null, 'the URL is not valid');
    }
    const client = target.protocol === 'https:' ? https : http;
    const body = Buffer.from(payload);
    const request = client.request(target, {
      method: 'POST',
      lookup: guardedLookup(options.allowPrivate) as never,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        'User-Agent': 'docex-webhooks/1',
        'Docex-Signature': signatureHeader(secret, payload),
      },
    });
    const timer = setTimeout(() => {
      request.destroy();
      finish(null, `no answer within ${options.timeoutMs} ms`);
    }, options.timeoutMs);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      response.on('error', () => undefined);
      if (status >= 200 && status < 300) return finish(status, null);
      if (status >= 300 && status < 400) return finish(status, `redirect to ${response.headers.location ?? 'nowhere'} not followed`);
      finish(status, `the receiver answered ${status}`);
    });
    request.on('error', (err: NodeJS.ErrnoException) => finish(null, err.message || err.code || 'connection failed'));
    request.end(body);
  });
}
