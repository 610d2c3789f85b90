import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/webhooks/address.js';
import { sendEvent } from '../../src/webhooks/send.js';
import { nextAttemptAt } from '../../src/webhooks/dispatcher.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { verifyWebhookSignature } from '../../src/client/index.js';
import { startReceiver, type Receiver } from './receiver.js';

describe('webhook delivery building blocks', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('classifies addresses', () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '224.0.0.1']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses a private address at connection time, after DNS resolution, when private addresses are not allowed', async () => {
    // `localhost` passes any check of the URL's text; the connection's own lookup refuses it.
    const port = new URL(receiver.url).port;
    const refused = await sendEvent(`http://localhost:${port}/x`, 'whsec_x', '{}', { timeoutMs: 2000, allowPrivate: false });
    expect(refused.status_code).toBeNull();
    expect(refused.error).toMatch(/private, loopback or link-local/);
    expect(receiver.received).toHaveLength(0);
    const allowed = await sendEvent(`http://localhost:${port}/x`, 'whsec_x', '{"a":1}', { timeoutMs: 2000, allowPrivate: true });
    expect(allowed).toMatchObject({ status_code: 200, error: null });
    expect(verifyWebhookSignature(receiver.received[0].body, receiver.received[0].signature, 'whsec_x')).toEqual({ a: 1 });
  });

  it('signs "<t>.<body>" as t=..,v1=..', () => {
    const header = signatureHeader('whsec_k', '{"x":1}', 1_795_860_930_000);
    expect(header).toMatch(/^t=1795860930,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature('{"x":1}', header, 'whsec_k', { now: 1_795_860_930_000 })).toEqual({ x: 1 });
  });

  it('backs off exponentially and stops at the end of the window', () => {
    const t0 = 1_000_000;
    expect(nextAttemptAt(1, t0, t0, 60_000, 86_400_000)).toBe(t0 + 60_000);
    expect(nextAttemptAt(3, t0, t0 + 1000, 60_000, 86_400_000)).toBe(t0 + 1000 + 240_000);
    expect(nextAttemptAt(12, t0, t0 + 80_000_000, 60_000, 86_400_000)).toBeNull();
  });
});
