import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, DocexError, type Extraction } from '../../src/client/index.js';
import { loadConfig } from '../../src/config.js';
import { decodeFile } from '../../src/extraction/input.js';
import { newId } from '../../src/ids.js';
import { createLogger } from '../../src/logger.js';
import { extractionService } from '../../src/services/extractions.js';
import { databaseQueue } from '../../src/queue/database-queue.js';
import { openStore } from '../../src/store/index.js';
import { toExtraction } from '../../src/store/extractions.js';
import { UsageError } from './usage.js';

const DEFAULT_URL = 'http://127.0.0.1:8080';
const TEMPLATE_ID = /^tpl_([0-9A-HJKMNP-TV-Z]{26}|builtin_[a-z0-9_]{1,60})$/;

const OPTIONS = {
  template: { type: 'string' },
  json: { type: 'boolean', default: false },
  local: { type: 'boolean', default: false },
} as const;

type Env = Record<string, string | undefined>;

/** A spinner on stderr, only on a terminal and only once the work has taken more than a second. */
function progress(stream: NodeJS.WriteStream, label: string): () => void {
  if (!stream.isTTY) return () => {};
  const frames = ['|', '/', '-', '\\'];
  const started = Date.now();
  let frame = 0;
  let ticker: NodeJS.Timeout | undefined;
  const delay = setTimeout(() => {
    ticker = setInterval(() => {
      stream.write(`\r${frames[frame++ % frames.length]} ${label} ${Math.floor((Date.now() - started) / 1000)} s`);
    }, 200);
    ticker.unref();
  }, 1000);
  delay.unref();
  return () => {
    clearTimeout(delay);
    if (ticker) {
      clearInterval(ticker);
      stream.write('\r\x1b[K');
    }
  };
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(1, width - 1))}…`;
}

/** The extraction as a header line and a field / value / confidence / explanation table. */
export function formatExtraction(extraction: Extraction, columns?: number): string {
  const pages = extraction.pages ?? extraction.credits_used;
  const head = [
    `${extraction.file_name}: ${extraction.status}`,
    `${pages} page${pages === 1 ? '' : 's'}`,
    ...(extraction.confidence !== null ? [`confidence ${extraction.confidence}`] : []),
    `template ${extraction.template_id ?? 'none'}`,
    extraction.id,
  ].join(', ');
  if (extraction.status === 'failed') return `${head}\nfailed: ${extraction.error_code ?? 'unknown'}: ${extraction.error_message ?? ''}\n`;
  const invoice = extraction.e_invoice;
  const said = invoice
    ? `e-invoice ${invoice.attachment}: ${invoice.status === 'read' ? `${invoice.status}, ${invoice.syntax ?? '-'} ${invoice.profile ?? invoice.specification ?? ''}`.trim() : invoice.status}${invoice.message ? `; ${invoice.message}` : ''}\n`
    : '';
  if (extraction.fields.length === 0) return `${head}\n${said}No fields found.\n`;
  const rows = [['FIELD', 'VALUE', 'CONFIDENCE', 'EXPLANATION'], ...extraction.fields.map((f) => [f.field, f.value, String(f.confidence), f.explanation])];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  widths[1] = Math.min(widths[1]!, 48);
  const lines = rows.map(([field, value, confidence, explanation]) => {
    const line = `${field!.padEnd(widths[0]!)}  ${clip(value!, widths[1]!).padEnd(widths[1]!)}  ${confidence!.padStart(widths[2]!)}  ${explanation}`;
    return columns ? clip(line, columns) : line;
  });
  return `${head}\n${said}\n${lines.join('\n')}\n`;
}

async function remote(body: { file: Buffer; fileName: string; templateId?: string }, env: Env): Promise<Extraction> {
  const apiKey = env.DOCEX_API_KEY?.trim();
  if (!apiKey) throw new UsageError('set DOCEX_API_KEY to an API key (npm start prints one on the first start; docex key create makes more), or use --local');
  const baseUrl = env.DOCEX_URL?.trim() || DEFAULT_URL;
  const client = createClient({ baseUrl, apiKey, retry: { maxRetries: 2, maxDelayMs: 10_000 } });
  try {
    return await client.extractFile(body.file, { fileName: body.fileName, ...(body.templateId ? { templateId: body.templateId } : {}) });
  } catch (err) {
    if (err instanceof DocexError) throw err;
    throw new Error(`cannot reach docex at ${baseUrl} (${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}); start it with npm start or set DOCEX_URL`);
  }
}

/**
 * The server's own extraction path, in this process: an in-memory store (so built-in templates apply and
 * nothing is written anywhere), the pipeline and the extraction service.
 */
async function local(body: { file: Buffer; fileName: string; templateId?: string }): Promise<Extraction> {
  // Loaded on demand: the pipeline and the template engine pull in pdf.js, sharp and tesseract, which a
  // request to a server never needs.
  const [{ createPipeline }, { templateService }, { createTemplateRunner }] = await Promise.all([
    import('../../src/extraction/pipeline.js'),
    import('../../src/services/templates.js'),
    import('../../src/templates/runner.js'),
  ]);
  const config = loadConfig();
  const store = await openStore('sqlite::memory:');
  const pipeline = createPipeline(config);
  const runner = createTemplateRunner(config);
  try {
    const workspace = await store.workspaces.create({ name: 'local', plan: 'free' });
    const service = extractionService({
      store,
      config,
      logger: createLogger('silent'),
      templates: templateService(store, runner).applier,
      extractor: { decode: (upload) => decodeFile(upload), extract: (file) => pipeline.extract(file) },
      // Never started: the CLI extracts synchronously, and nothing it makes outlives the process.
      queue: databaseQueue({ jobs: store.jobs, instanceId: store.instanceId, concurrency: 1, pollMs: config.queuePollMs, staleMs: config.instanceStaleMs, maxAttempts: config.queueMaxAttempts, logger: createLogger('silent') }),
    });
    const upload = { file: body.file.toString('base64'), file_name: body.fileName, ...(body.templateId ? { template_id: body.templateId } : {}) };
    return toExtraction(await service.create(workspace.id, upload, newId('req'), 'cli'));
  } finally {
    await Promise.all([pipeline.close(), runner.close()]);
    await store.close();
  }
}

function describeError(err: DocexError): string {
  const retry = err.retryAfter !== null ? `; retry in ${err.retryAfter} s` : '';
  const request = err.requestId ? ` (request ${err.requestId})` : '';
  return `${err.code} (${err.status}): ${err.message}${retry}${request}`;
}

/** `docex extract FILE [--template tpl_...] [--json] [--local]`; returns the exit code. */
export async function extract(args: string[], env: Env = process.env): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('extract takes exactly one FILE');
  if (values.template !== undefined && !TEMPLATE_ID.test(values.template)) throw new UsageError(`--template must be a template id (tpl_...), got ${values.template}`);
  const filePath = positionals[0]!;
  const file = await fs.readFile(filePath).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${filePath}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const body = { file, fileName: path.basename(filePath), ...(values.template ? { templateId: values.template } : {}) };

  const done = progress(process.stderr, `extracting ${body.fileName}`);
  let extraction: Extraction;
  try {
    extraction = values.local ? await local(body) : await remote(body, env);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as { code?: unknown }).code;
    // The in-process path raises the service's own ApiError, which carries a code like DocexError.
    const message = err instanceof DocexError ? describeError(err) : typeof code === 'string' ? `${code}: ${(err as Error).message}` : (err as Error).message;
    process.stderr.write(`docex: extraction failed: ${message}\n`);
    return 1;
  } finally {
    done();
  }

  process.stdout.write(values.json ? `${JSON.stringify(extraction, null, 2)}\n` : formatExtraction(extraction, process.stdout.isTTY ? process.stdout.columns : undefined));
  return extraction.status === 'completed' ? 0 : 1;
}
