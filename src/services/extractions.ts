import type { Knex } from 'knex';
import type { components } from '../../generated/openapi.js';
import { ApiError, DocumentError, invalidRequest, notFound, serviceUnavailable } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import type { ExtractionOutcome, ExtractionRecord, ExtractionsRepository } from '../store/extractions.js';
import type { ExtractionQueue, JobHandler } from '../queue/types.js';
import type { Config } from '../config.js';
import { documentContent } from '../extraction/document-content.js';
import type { EInvoice } from '../extraction/einvoice/read.js';
import type { OcrLanguage } from '../extraction/ocr-languages.js';
import type { DocumentText, FoundField } from '../extraction/types.js';

type ExtractionCreate = components['schemas']['ExtractionCreate'];
type ExtractionField = components['schemas']['ExtractionField'];
type ContentType = components['schemas']['ContentType'];
type Template = components['schemas']['Template'];

export interface DecodedFile {
  bytes: Buffer;
  contentType: ContentType;
}

export interface PipelineResult {
  pages: number;
  document: DocumentText;
  fields: FoundField[];
  confidence: number;
  eInvoice: EInvoice | null;
}

/** What the service needs from the extraction pipeline; `extract` is null where documents are read by other processes (`ROLE=api`). */
export interface Extractor {
  decode(body: ExtractionCreate): DecodedFile;
  extract: ((file: DecodedFile, languages?: OcrLanguage[]) => Promise<PipelineResult>) | null;
}

/** How often a synchronous request on an API-only instance looks whether the workers have finished its extraction. */
const SYNC_POLL_MS = 100;
/** How long it waits for them at most: the server's request timeout, past which the client is gone anyway. */
const SYNC_WAIT_MS = 10 * 60_000;

/** What the service needs from templates: the one to apply (given or matched) and its fields merged in. */
export interface TemplateApplier {
  find(workspaceId: string, templateId: string): Promise<Template | undefined>;
  apply(workspaceId: string, templateId: string | undefined, result: PipelineResult): Promise<{ templateId: string | null; fields: FoundField[]; confidence: number }>;
}

function numbered(fields: FoundField[]): ExtractionField[] {
  return fields.map((f, i) => ({
    id: i + 1,
    field: f.field,
    value: f.value,
    confidence: Math.round(Math.min(100, Math.max(0, f.confidence))),
    explanation: f.explanation,
    ...(f.page !== undefined ? { page: f.page } : {}),
    ...(f.bbox ? { bbox: f.bbox } : {}),
  }));
}

/**
 * The languages OCR is to read in: the request's, which must be among the server's, else the
 * template's that the server reads, else none (the server's first, then what the page shows).
 */
function ocrLanguages(asked: string[] | undefined, template: Template | undefined, config: Config): OcrLanguage[] | undefined {
  const readable = (code: string): code is OcrLanguage => (config.ocrLanguages as string[]).includes(code);
  if (asked?.length) {
    const unknown = asked.filter((code) => !readable(code));
    if (unknown.length) {
      throw invalidRequest(`body.languages: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not among the languages this server reads (${config.ocrLanguages.join(', ')})`);
    }
    return asked as OcrLanguage[];
  }
  const fromTemplate = template?.options?.languages?.filter(readable) ?? [];
  return fromTemplate.length ? fromTemplate : undefined;
}

/** An admitted request: the decoded file and the languages OCR is to read it in. */
interface Admitted {
  file: DecodedFile;
  languages: OcrLanguage[] | undefined;
}

/** How a finished extraction is announced: written in the transaction that finishes it, then signalled. */
export interface ExtractionEvents {
  /** Resolves with the webhook deliveries it queued. */
  announce(trx: Knex.Transaction, record: ExtractionRecord): Promise<number>;
  /** Called once the outcome and its announcement are committed, when the announcement queued deliveries. */
  announced(): void;
}

/**
 * One extraction from request to stored result, answered at once (`create`) or queued for the
 * workers (`enqueue`, `Prefer: respond-async`). The record is written as `processing` before any work
 * starts, so a crash leaves a trace: a synchronous one is then marked failed, a queued one is taken
 * again by a worker.
 */
export function extractionService(deps: {
  store: Store;
  extractor: Extractor;
  templates: TemplateApplier;
  config: Config;
  logger: Logger;
  queue: ExtractionQueue;
  events?: ExtractionEvents;
}) {
  const { store, extractor, templates, config, logger, queue } = deps;

  /** Checks the request before anything is stored: bad input is a 4xx, never a failed extraction. */
  async function admit(workspaceId: string, body: ExtractionCreate): Promise<Admitted> {
    const file = extractor.decode(body);
    const template = body.template_id ? await templates.find(workspaceId, body.template_id) : undefined;
    if (body.template_id && !template) throw invalidRequest(`body.template_id: no such template ${body.template_id}`);
    return { file, languages: ocrLanguages(body.languages, template, config) };
  }

  async function record(
    extractions: ExtractionsRepository,
    workspaceId: string,
    body: ExtractionCreate,
    file: DecodedFile,
    requestId: string,
    source: 'api' | 'cli',
  ): Promise<ExtractionRecord> {
    return extractions.create(
      { id: newId('ext'), workspace_id: workspaceId, file_name: body.file_name, file_type: file.contentType, template_id: body.template_id ?? null, source, request_id: requestId },
      config.keepUploads ? file.bytes : null,
    );
  }

  /** The pipeline and templates on one document; a document that cannot be read is a failed outcome, anything else throws. */
  async function outcomeOf(workspaceId: string, { file, languages }: Admitted, templateId: string | undefined): Promise<ExtractionOutcome> {
    try {
      const result = await extractor.extract!(file, languages);
      const applied = await templates.apply(workspaceId, templateId, result);
      return {
        status: 'completed',
        template_id: applied.templateId,
        confidence: Math.round(applied.confidence),
        pages: result.pages,
        credits_used: result.pages,
        fields: numbered(applied.fields),
        e_invoice: result.eInvoice,
        document: documentContent(result.document),
      };
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err;
      return { status: 'failed', error_code: err.code, error_message: err.message, pages: err.pages ?? 0, credits_used: err.pages ?? 0 };
    }
  }

  /** Stores the outcome and announces it, once: a second worker finishing the same extraction changes nothing. */
  async function finish(id: string, outcome: ExtractionOutcome): Promise<void> {
    if (outcome.status === 'failed') logger.info({ extraction_id: id, code: outcome.error_code }, 'extraction failed');
    // Only deliveries wake the webhook sender: for a workspace without webhooks it would look for
    // none, a query per extraction that waits its turn at the database with the requests.
    const { events } = deps;
    let deliveries = 0;
    const announce = events && (async (trx: Knex.Transaction, record: ExtractionRecord) => void (deliveries = await events.announce(trx, record)));
    if ((await store.extractions.finish(id, outcome, announce)) && deliveries > 0) events?.announced();
  }

  return {
    async create(workspaceId: string, body: ExtractionCreate, requestId: string, source: 'api' | 'cli' = 'api'): Promise<ExtractionRecord> {
      if (!extractor.extract) {
        // An API-only instance: the workers read the document and this request waits for them, so
        // synchronous and queued extractions share one pool of workers.
        const { id } = await this.enqueue(workspaceId, body, requestId, source);
        const deadline = Date.now() + SYNC_WAIT_MS;
        for (;;) {
          const current = (await store.extractions.get(workspaceId, id))!;
          if (current.status !== 'processing') return current;
          if (Date.now() > deadline) throw serviceUnavailable(`No worker finished extraction ${id} in time; it stays queued: GET /v1/extractions/${id} later.`, 60);
          await new Promise((resolve) => setTimeout(resolve, SYNC_POLL_MS));
        }
      }
      const admitted = await admit(workspaceId, body);
      const { id } = await record(store.extractions, workspaceId, body, admitted.file, requestId, source);
      let outcome: ExtractionOutcome;
      try {
        outcome = await outcomeOf(workspaceId, admitted, body.template_id);
      } catch (err) {
        // The client gets the error envelope; the stored record says why it never completed.
        const failure = err instanceof ApiError
          ? { error_code: err.code, error_message: err.message }
          : { error_code: 'internal_error', error_message: 'The extraction failed unexpectedly.' };
        await store.extractions
          .finish(id, { status: 'failed', ...failure, pages: 0, credits_used: 0 })
          .catch((e: unknown) => logger.error({ err: e, extraction_id: id }, 'could not mark extraction failed'));
        throw err;
      }
      await finish(id, outcome);
      const stored = await store.extractions.get(workspaceId, id);
      // DELETE /v1/extractions/{id} may remove it while it is processing (its id is in the list by then).
      if (!stored) throw notFound(`The extraction ${id} was deleted while it was processing.`);
      return stored;
    },

    /**
     * Checks the request, stores it as `processing` with its job in one transaction and queues it;
     * the workers finish it.
     */
    async enqueue(workspaceId: string, body: ExtractionCreate, requestId: string, source: 'api' | 'cli' = 'api'): Promise<ExtractionRecord> {
      const { file, languages } = await admit(workspaceId, body);
      const created = await store.transaction(async (tx) => {
        const stored = await record(tx.extractions, workspaceId, body, file, requestId, source);
        const job = { extraction_id: stored.id, workspace_id: workspaceId, file: file.bytes, content_type: file.contentType, template_id: body.template_id ?? null, languages: languages?.join(',') ?? null };
        await tx.jobs.enqueue(job, Date.now());
        return stored;
      });
      try {
        await queue.enqueue(created.id);
      } catch {
        // No worker will hear of the job: it goes, and the record says why the extraction never ran.
        await store
          .transaction(async (tx) => {
            await tx.jobs.remove(created.id);
            await tx.extractions.finish(created.id, { status: 'failed', error_code: 'service_unavailable', error_message: 'The queue could not be reached.', pages: 0, credits_used: 0 });
          })
          .catch((e: unknown) => logger.error({ err: e, extraction_id: created.id }, 'could not mark extraction failed'));
        throw serviceUnavailable('The extraction queue is unavailable; retry shortly.', 5);
      }
      return created;
    },

    /** What the queue's workers run. */
    jobHandler: {
      async run(job) {
        const languages = job.languages ? (job.languages.split(',') as OcrLanguage[]) : undefined;
        const outcome = await outcomeOf(job.workspace_id, { file: { bytes: job.file, contentType: job.content_type }, languages }, job.template_id ?? undefined);
        await finish(job.extraction_id, outcome);
      },
      async abandon(job, reason) {
        await finish(job.extraction_id, { status: 'failed', error_code: 'interrupted', error_message: reason, pages: 0, credits_used: 0 });
      },
    } satisfies JobHandler,
  };
}

export type ExtractionService = ReturnType<typeof extractionService>;
