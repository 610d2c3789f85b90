import os from 'node:os';
import path from 'node:path';
import { isOcrLanguage, OCR_LANGUAGES, type OcrLanguage } from './extraction/ocr-languages.js';

/** Every environment variable the service reads, parsed and checked once at start. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  logLevel: string;
  /** Allow requests when the rate-limit store is unreachable instead of answering 503. */
  rateLimitFailOpen: boolean;
  authFailuresPerMinute: number;
  corsOrigins: string[];
  maxPages: number;
  maxImagePixels: number;
  ocrTimeoutMs: number;
  ocrWorkers: number;
  ocrQueueMax: number;
  /**
   * Languages OCR may read, the first the one every page is read in first; a page whose words
   * show another of them is read again in it. A request or template may name others of these.
   */
  ocrLanguages: OcrLanguage[];
  /** Worker threads that read PDFs and find fields; each holds one document at a time. */
  documentWorkers: number;
  /** Documents allowed to wait for a document worker; one more and the request is refused with 503. */
  documentQueueMax: number;
  /** Time a document worker may spend on one document in all: a PDF's opening, text layers, renders and fields, or an image's fields. */
  documentTimeoutMs: number;
  documentWorkerHeapMb: number;
  /** A PDF's streams may decode to this many times the file's size in all, and to `pdfDecodedMinMb` whatever its size. */
  pdfDecodedRatio: number;
  pdfDecodedMinMb: number;
  /** The largest invoice XML attached to a PDF (Factur-X, ZUGFeRD, XRechnung) that is read; a larger one is ignored. */
  eInvoiceMaxMb: number;
  /** Worker threads that select and apply templates. */
  templateWorkers: number;
  /** Time a template worker may spend selecting and applying templates for one document. */
  templateTimeoutMs: number;
  templateWorkerHeapMb: number;
  keepUploads: boolean;
  /** Extractions older than this many days are deleted in the background; null keeps them. */
  retentionDays: number | null;
  shutdownTimeoutMs: number;
  /**
   * A server that has not beaten its heartbeat for this long is taken to be gone; its `processing`
   * extractions are then marked failed by the other servers (or by the next start).
   */
  instanceStaleMs: number;
  /** Queued extractions one process runs at once. */
  queueConcurrency: number;
  /** How often an idle worker looks for jobs other processes queued in the database. */
  queuePollMs: number;
  /** Times a queued extraction is tried (its worker died, or it failed unexpectedly) before it is failed. */
  queueMaxAttempts: number;
  /** With Redis: a job whose worker has not renewed its lock for this long is taken to be abandoned. */
  queueStalledMs: number;
  /** `all` serves the API and reads documents; `api` queues every extraction for `docex worker` processes. */
  role: 'all' | 'api';
  /** Let webhooks reach loopback, link-local and private addresses (a self-hosted internal network). */
  webhookAllowPrivate: boolean;
  /** Time a receiver has to answer one delivery attempt. */
  webhookTimeoutMs: number;
  /** Delay before the second attempt; each next one doubles. */
  webhookRetryBaseMs: number;
  /** Attempts stop once the next would come this long after the event. */
  webhookRetryWindowMs: number;
  /** Deliveries one process sends at once. */
  webhookConcurrency: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function ocrLanguages(env: Env): OcrLanguage[] {
  const raw = env.OCR_LANGUAGES?.trim();
  if (!raw) return Object.keys(OCR_LANGUAGES) as OcrLanguage[];
  const codes = [...new Set(raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))];
  const unknown = codes.filter((c) => !isOcrLanguage(c));
  if (!codes.length || unknown.length) {
    throw new ConfigError(`OCR_LANGUAGES must list languages of ${Object.keys(OCR_LANGUAGES).join(', ')}, got "${raw}"`);
  }
  return codes as OcrLanguage[];
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return `sqlite:${path.resolve('data', 'docex.sqlite')}`;
  if (/^sqlite:/.test(raw) || /^postgres(ql)?:\/\//.test(raw)) return raw;
  throw new ConfigError(`DATABASE_URL must start with sqlite: or postgres://, got "${raw.replace(/\/\/[^@]*@/, '//***@')}"`);
}

function redisUrl(env: Env): string | null {
  const raw = env.REDIS_URL?.trim();
  if (!raw) return null;
  if (!/^rediss?:\/\//.test(raw)) throw new ConfigError('REDIS_URL must start with redis:// or rediss://');
  return raw;
}

function role(env: Env): Config['role'] {
  const raw = (env.ROLE ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'all') return 'all';
  if (raw === 'api') return 'api';
  throw new ConfigError(`ROLE must be all or api (workers run with \`docex worker\`), got "${env.ROLE}"`);
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  const cpus = os.availableParallelism?.() ?? os.cpus().length;
  // A worker on every CPU: OCR is what users wait for, and on a quiet two-CPU machine GET /v1/me's
  // p99 while both read scans stayed at 15-17 ms (11-12 ms with one worker); see docs/benchmarks.md.
  const ocrWorkers = integer(env, 'OCR_WORKERS', cpus, 1, 64);
  const database = databaseUrl(env);
  const serverRole = role(env);
  // Workers of an API-only instance are other processes, which share a PostgreSQL database, never a SQLite file.
  if (serverRole === 'api' && database.startsWith('sqlite:')) throw new ConfigError('ROLE=api needs DATABASE_URL on PostgreSQL, shared with the docex worker processes');
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    databaseUrl: database,
    redisUrl: redisUrl(env),
    logLevel,
    rateLimitFailOpen: boolean(env, 'RATE_LIMIT_FAIL_OPEN', false),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 60, 1, 1_000_000),
    corsOrigins: (env.CORS_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    maxPages: integer(env, 'MAX_PAGES', 50, 1, 10_000),
    maxImagePixels: integer(env, 'MAX_IMAGE_PIXELS', 40_000_000, 1, 1_000_000_000),
    ocrTimeoutMs: integer(env, 'OCR_TIMEOUT_MS', 60_000, 100, 3_600_000),
    ocrWorkers,
    ocrQueueMax: integer(env, 'OCR_QUEUE_MAX', 8, 0, 10_000),
    ocrLanguages: ocrLanguages(env),
    // At least two, so that a PDF waiting on OCR (it keeps its worker) does not hold up every text PDF.
    documentWorkers: integer(env, 'DOCUMENT_WORKERS', Math.max(2, cpus), 1, 64),
    documentQueueMax: integer(env, 'DOCUMENT_QUEUE_MAX', 16, 0, 10_000),
    documentTimeoutMs: integer(env, 'DOCUMENT_TIMEOUT_MS', 30_000, 100, 3_600_000),
    documentWorkerHeapMb: integer(env, 'DOCUMENT_WORKER_HEAP_MB', 512, 64, 65_536),
    pdfDecodedRatio: integer(env, 'PDF_DECODED_RATIO', 200, 1, 1_000_000),
    pdfDecodedMinMb: integer(env, 'PDF_DECODED_MIN_MB', 256, 1, 1_000_000),
    eInvoiceMaxMb: integer(env, 'EINVOICE_MAX_MB', 5, 1, 1_000),
    templateWorkers: integer(env, 'TEMPLATE_WORKERS', 2, 1, 64),
    templateTimeoutMs: integer(env, 'TEMPLATE_TIMEOUT_MS', 2_000, 10, 600_000),
    templateWorkerHeapMb: integer(env, 'TEMPLATE_WORKER_HEAP_MB', 256, 32, 65_536),
    keepUploads: boolean(env, 'KEEP_UPLOADS', false),
    retentionDays: env.RETENTION_DAYS?.trim() ? integer(env, 'RETENTION_DAYS', 0, 1, 36_500) : null,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    instanceStaleMs: integer(env, 'INSTANCE_STALE_MS', 60_000, 3_000, 86_400_000),
    // One job more than OCR workers, so that a worker finds the next page ready when it is done.
    queueConcurrency: integer(env, 'QUEUE_CONCURRENCY', ocrWorkers + 1, 1, 256),
    queuePollMs: integer(env, 'QUEUE_POLL_MS', 1000, 10, 60_000),
    queueMaxAttempts: integer(env, 'QUEUE_MAX_ATTEMPTS', 3, 1, 100),
    queueStalledMs: integer(env, 'QUEUE_STALLED_MS', 30_000, 1_000, 600_000),
    role: serverRole,
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 60_000, 10, 3_600_000),
    webhookRetryWindowMs: integer(env, 'WEBHOOK_RETRY_WINDOW_MS', 86_400_000, 1_000, 7 * 86_400_000),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256),
  };
}
