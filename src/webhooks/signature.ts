import crypto from 'node:crypto';

/** `whsec_` and 32 random bytes: the key receivers check `Docex-Signature` with. */
export function generateSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64url')}`;
}

/** Hex HMAC-SHA256 of `<t>.<raw body>` with the secret, as Stripe signs its webhooks. */
export function signature(secret: string, timestamp: number, rawBody: string): string {
  return crypto.createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

/** The `Docex-Signature` header: `t=<unix seconds>,v1=<hex HMAC>`. */
export function signatureHeader(secret: string, rawBody: string, now: number = Date.now()): string {
  const t = Math.floor(now / 1000);
  return `t=${t},v1=${signature(secret, t, rawBody)}`;
}
