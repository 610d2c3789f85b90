import crypto from 'node:crypto';
import type { components } from '../../generated/openapi.js';

export type WebhookEvent = components['schemas']['WebhookEvent'];

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export interface VerifyOptions {
  /** Oldest signature time accepted, in seconds before now (replay protection); 300 by default. */
  toleranceSeconds?: number;
  /** The current time in ms, for tests. */
  now?: number;
}

/**
 * Checks a delivery's `Docex-Signature` (`t=<unix seconds>,v1=<hex>`) against the raw request body
 * and the webhook's `whsec_` secret, and returns the parsed event. Throws `WebhookSignatureError`
 * when the header is malformed, no `v1` matches, or `t` is older than the tolerance. Pass the body
 * exactly as received: parsing and re-serialising JSON changes the bytes and breaks the signature.
 */
export function verifyWebhookSignature(rawBody: string | Buffer, header: string | null | undefined, secret: string, options: VerifyOptions = {}): WebhookEvent {
  if (!header) throw new WebhookSignatureError('no Docex-Signature header');
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v);
  if (!t || !/^\d+$/.test(t) || signatures.length === 0) throw new WebhookSignatureError('malformed Docex-Signature header');
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const expected = crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const matches = signatures.some((s) => {
    const given = Buffer.from(s, 'hex');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookSignatureError('the signature does not match the body and secret');
  const age = (options.now ?? Date.now()) / 1000 - Number(t);
  if (age > (options.toleranceSeconds ?? 300)) throw new WebhookSignatureError(`the signature is ${Math.round(age)} s old`);
  return JSON.parse(body) as WebhookEvent;
}
