import createFetchClient from 'openapi-fetch';
import type { components, paths } from '../../generated/openapi.js';
import { toDocexError } from './errors.js';
import { extractionBody, type FileOptions } from './file.js';
import { realSleep, retryingFetch, type RetryOptions, type Sleep } from './retry.js';

export { DocexError, parseRetryAfter, type ErrorCode } from './errors.js';
export type { FileOptions } from './file.js';
export type { RetryOptions, Sleep } from './retry.js';
export { verifyWebhookSignature, WebhookSignatureError, type VerifyOptions, type WebhookEvent } from './webhooks.js';

export type Extraction = components['schemas']['Extraction'];
export type ExtractionCreate = components['schemas']['ExtractionCreate'];
export type ExtractionField = components['schemas']['ExtractionField'];
export type ExtractionList = components['schemas']['ExtractionList'];
export type DocumentContent = NonNullable<components['schemas']['DocumentContent']>;
export type LineItem = components['schemas']['LineItem'];
export type Me = components['schemas']['Me'];
export type Template = components['schemas']['Template'];
export type TemplateCreate = components['schemas']['TemplateCreate'];
export type TemplateUpdate = components['schemas']['TemplateUpdate'];
export type TemplateList = components['schemas']['TemplateList'];
export type Webhook = components['schemas']['Webhook'];
export type WebhookCreate = components['schemas']['WebhookCreate'];
export type WebhookCreated = components['schemas']['WebhookCreated'];
export type WebhookList = components['schemas']['WebhookList'];
export type WebhookDeliveryList = components['schemas']['WebhookDeliveryList'];

export interface ExtractOptions extends FileOptions {
  /** Answer at once with the extraction `processing` (`Prefer: respond-async`); see `waitFor`. */
  async?: boolean;
  /** Sent as `Idempotency-Key`, so that retrying the call cannot extract twice. */
  idempotencyKey?: string;
}

export interface WaitOptions {
  /** Time between polls; 1 s by default. */
  intervalMs?: number;
  /** Give up (throw) after this long; 10 minutes by default. */
  timeoutMs?: number;
}
export type { components, paths };

export interface ClientOptions {
  /** Where the server listens, such as `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** A `dx_live_...` key. */
  apiKey: string;
  /** Wait `Retry-After` and try again on 429 and 503. Off unless given. */
  retry?: Partial<RetryOptions>;
  /** How the client waits between retries; tests pass one that does not really sleep. */
  sleep?: Sleep;
  /** The fetch implementation, `globalThis.fetch` by default. */
  fetch?: typeof fetch;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, maxDelayMs: 60_000 };

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a 2xx answer, or the error envelope thrown as a DocexError. */
async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw toDocexError(error, response);
  return data as T;
}

/**
 * A typed docex client. Each method returns the response body of a 2xx answer and throws a
 * `DocexError` otherwise; `api` is the underlying openapi-fetch client for anything else.
 */
export function createClient(options: ClientOptions) {
  const retry: RetryOptions = options.retry ? { ...DEFAULT_RETRY, ...options.retry } : { maxRetries: 0, maxDelayMs: 0 };
  const sleep = options.sleep ?? realSleep;
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(retry, sleep, options.fetch ?? globalThis.fetch),
  });
  /** `include: 'document'` adds the text docex read (`document`). */
  const getExtraction = (id: string, query: { include?: 'document' } = {}) => unwrap<Extraction>(api.GET('/v1/extractions/{id}', { params: { path: { id }, query } }));

  return {
    api,
    me: () => unwrap<Me>(api.GET('/v1/me')),
    createExtraction: (body: ExtractionCreate) => unwrap<Extraction>(api.POST('/v1/extractions', { body })),
    /** Sends a file from disk (a path) or memory (a Buffer) and returns the finished extraction. */
    extractFile: async (file: string | Buffer, fileOptions: FileOptions = {}) =>
      unwrap<Extraction>(api.POST('/v1/extractions', { body: await extractionBody(file, fileOptions) })),
    getExtraction,
    /** Deletes the extraction and everything stored for it; an id already gone is not an error. */
    deleteExtraction: async (id: string): Promise<void> => {
      await unwrap<unknown>(api.DELETE('/v1/extractions/{id}', { params: { path: { id } } }));
    },
    /**
     * Sends a file like `extractFile`; with `async: true` the answer is the extraction still
     * `processing` (202), to be followed with `waitFor(extraction.id)` or a webhook.
     */
    extract: async (file: string | Buffer, extractOptions: ExtractOptions = {}) => {
      const { async, idempotencyKey, ...fileOptions } = extractOptions;
      const header = { ...(async ? { Prefer: 'respond-async' } : {}), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) };
      return unwrap<Extraction>(api.POST('/v1/extractions', { body: await extractionBody(file, fileOptions), params: { header } }));
    },
    /** Polls an extraction until it is `completed` or `failed` and returns it. */
    waitFor: async (id: string, waitOptions: WaitOptions = {}): Promise<Extraction> => {
      const deadline = Date.now() + (waitOptions.timeoutMs ?? 600_000);
      for (;;) {
        const extraction = await getExtraction(id);
        if (extraction.status !== 'processing') return extraction;
        if (Date.now() >= deadline) throw new Error(`extraction ${id} still processing after ${waitOptions.timeoutMs ?? 600_000} ms`);
        await sleep(waitOptions.intervalMs ?? 1000);
      }
    },
    createWebhook: (body: WebhookCreate) => unwrap<WebhookCreated>(api.POST('/v1/webhooks', { body })),
    listWebhooks: (query: { limit?: number; starting_after?: string } = {}) => unwrap<WebhookList>(api.GET('/v1/webhooks', { params: { query } })),
    deleteWebhook: async (id: string): Promise<void> => {
      await unwrap<unknown>(api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } }));
    },
    listWebhookDeliveries: (id: string, query: { limit?: number; starting_after?: string } = {}) =>
      unwrap<WebhookDeliveryList>(api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query } })),
    listExtractions: (query: { limit?: number; starting_after?: string } = {}) =>
      unwrap<ExtractionList>(api.GET('/v1/extractions', { params: { query } })),
    createTemplate: (body: TemplateCreate) => unwrap<Template>(api.POST('/v1/templates', { body })),
    getTemplate: (id: string) => unwrap<Template>(api.GET('/v1/templates/{id}', { params: { path: { id } } })),
    listTemplates: (query: { limit?: number; starting_after?: string } = {}) =>
      unwrap<TemplateList>(api.GET('/v1/templates', { params: { query } })),
    updateTemplate: (id: string, body: TemplateUpdate) => unwrap<Template>(api.PATCH('/v1/templates/{id}', { params: { path: { id } }, body })),
    deleteTemplate: async (id: string): Promise<void> => {
      await unwrap<unknown>(api.DELETE('/v1/templates/{id}', { params: { path: { id } } }));
    },
  };
}

export type DocexClient = ReturnType<typeof createClient>;
