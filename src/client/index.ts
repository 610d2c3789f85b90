import createFetchClient from 'openapi-fetch';
import type { components, paths } from '../../generated/openapi.js';
import { toDocexError } from './errors.js';
import { extractionBody, type FileOptions } from './file.js';
import { realSleep, retryingFetch, type RetryOptions, type Sleep } from './retry.js';

export { DocexError, parseRetryAfter, type ErrorCode } from './errors.js';
export type { FileOptions } from './file.js';
export type { RetryOptions, Sleep } from './retry.js';

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
  const api = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(retry, options.sleep ?? realSleep, options.fetch ?? globalThis.fetch),
  });

  return {
    api,
    me: () => unwrap<Me>(api.GET('/v1/me')),
    createExtraction: (body: ExtractionCreate) => unwrap<Extraction>(api.POST('/v1/extractions', { body })),
    /** Sends a file from disk (a path) or memory (a Buffer) and returns the finished extraction. */
    extractFile: async (file: string | Buffer, fileOptions: FileOptions = {}) =>
      unwrap<Extraction>(api.POST('/v1/extractions', { body: await extractionBody(file, fileOptions) })),
    /** `include: 'document'` adds the text docex read (`document`). */
    getExtraction: (id: string, query: { include?: 'document' } = {}) => unwrap<Extraction>(api.GET('/v1/extractions/{id}', { params: { path: { id }, query } })),
    /** Deletes the extraction and everything stored for it; an id already gone is not an error. */
    deleteExtraction: async (id: string): Promise<void> => {
      await unwrap<unknown>(api.DELETE('/v1/extractions/{id}', { params: { path: { id } } }));
    },
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
