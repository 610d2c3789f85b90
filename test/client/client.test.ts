import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, DocexError } from 'docex/client';
import { invoicePdf, startTestServer, type TestServer } from './helpers.js';

describe('typed client against a running server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('describes the calling key', async () => {
    const me = await createClient({ baseUrl: t.url, apiKey: t.key }).me();
    expect(t.key.startsWith(me.api_key.prefix)).toBe(true);
    expect(me.api_key.scopes).toContain('extractions:write');
    expect(me.workspace?.plan).toBe('free');
    expect(me.request_id).toMatch(/^req_/);
  });

  it('extracts a generated PDF and fetches it back', async () => {
    const client = createClient({ baseUrl: `${t.url}/`, apiKey: t.key });
    const extraction = await client.extractFile(await invoicePdf(), { fileName: 'invoice.pdf' });
    expect(extraction.status).toBe('completed');
    expect(extraction.file_type).toBe('application/pdf');
    expect(extraction.data.invoice_number).toBe('INV-2026-001');
    expect(extraction.data.total_amount).toBe('1234.50');
    const again = await client.getExtraction(extraction.id);
    expect(again.fields).toEqual(extraction.fields);
    expect(again.document).toBeUndefined();
    const withText = await client.getExtraction(extraction.id, { include: 'document' });
    expect(withText.document!.pages[0]!.lines.map((l) => l.text)).toContain('ACME Corporation');
  });

  it('deletes an extraction, and deleting it again is no error', async () => {
    const client = createClient({ baseUrl: t.url, apiKey: t.key });
    const extraction = await client.extractFile(await invoicePdf(), { fileName: 'invoice.pdf' });
    await client.deleteExtraction(extraction.id);
    await expect(client.getExtraction(extraction.id)).rejects.toMatchObject({ name: 'DocexError', code: 'not_found', status: 404 });
    await expect(client.deleteExtraction(extraction.id)).resolves.toBeUndefined();
  });

  it('surfaces the error envelope as a typed DocexError', async () => {
    const client = createClient({ baseUrl: t.url, apiKey: t.key });
    const err = await client.extractFile(Buffer.from('plain text, not a PDF'), { fileName: 'notes.pdf' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocexError);
    expect(err).toMatchObject({ code: 'invalid_file', status: 422, retryAfter: null });
    expect((err as DocexError).requestId).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);

    const unknownKey = createClient({ baseUrl: t.url, apiKey: `dx_live_${'A'.repeat(43)}` });
    await expect(unknownKey.me()).rejects.toMatchObject({ name: 'DocexError', code: 'unauthorized', status: 401 });
  });
});

describe('typed client: 429 and Retry-After', () => {
  // The server's clock is injected; the client's sleep moves it on instead of waiting.
  let now = Date.UTC(2026, 10, 22, 10, 15, 30);
  const clock = { now: () => now };
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('waits Retry-After and retries, within the bounds given', async () => {
    const plain = createClient({ baseUrl: t.url, apiKey: t.key });
    for (let i = 0; i < 10; i++) await plain.me();

    const refused = await plain.me().catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 30 });

    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
      now += ms;
    };
    const impatient = createClient({ baseUrl: t.url, apiKey: t.key, retry: { maxRetries: 3, maxDelayMs: 29_000 }, sleep });
    await expect(impatient.me()).rejects.toMatchObject({ code: 'rate_limited', retryAfter: 30 });
    expect(slept).toEqual([]);

    const patient = createClient({ baseUrl: t.url, apiKey: t.key, retry: { maxRetries: 1, maxDelayMs: 60_000 }, sleep });
    const me = await patient.me();
    expect(me.workspace?.limits.per_minute).toBe(10);
    expect(slept).toEqual([30_000]);
  });
});
