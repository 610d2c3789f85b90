import type { components } from '../../generated/openapi.js';
import { ApiError, DocumentError, invalidRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import type { ExtractionRecord } from '../store/extractions.js';
import type { Config } from '../config.js';
import type { EInvoice } from '../extraction/einvoice/read.js';
import type { OcrLanguage } from '../extraction/ocr-languages.js';
import type { DocumentText, FoundField } from '../extraction/types.js';
import { documentContent } from '../extraction/document-content.js';

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

/** What the service needs from the extraction pipeline. */
export interface Extractor {
  decode(body: ExtractionCreate): DecodedFile;
  extract(file: DecodedFile, languages?: OcrLanguage[]): Promise<PipelineResult>;
}

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

/**
 * One extraction from request to stored result. The record is written as `processing` before any
 * work starts, so a crash leaves a trace that the next start marks failed.
 */
export function extractionService(deps: { store: Store; extractor: Extractor; templates: TemplateApplier; config: Config; logger: Logger }) {
  const { store, extractor, templates, config, logger } = deps;
  return {
    async create(workspaceId: string, body: ExtractionCreate, requestId: string, source: 'api' | 'cli' = 'api'): Promise<ExtractionRecord> {
      const file = extractor.decode(body);
      const template = body.template_id ? await templates.find(workspaceId, body.template_id) : undefined;
      if (body.template_id && !template) throw invalidRequest(`body.template_id: no such template ${body.template_id}`);
      const languages = ocrLanguages(body.languages, template, config);
      const id = newId('ext');
      await store.extractions.create(
        { id, workspace_id: workspaceId, file_name: body.file_name, file_type: file.contentType, template_id: body.template_id ?? null, source, request_id: requestId },
        config.keepUploads ? file.bytes : null,
      );
      try {
        const result = await extractor.extract(file, languages);
        const applied = await templates.apply(workspaceId, body.template_id, result);
        await store.extractions.finish(id, {
          status: 'completed',
          template_id: applied.templateId,
          confidence: Math.round(applied.confidence),
          pages: result.pages,
          credits_used: result.pages,
          fields: numbered(applied.fields),
          e_invoice: result.eInvoice,
        }, documentContent(result.document));
      } catch (err) {
        if (!(err instanceof DocumentError)) {
          // The client gets the error envelope; the stored record says why it never completed.
          const failure = err instanceof ApiError
            ? { error_code: err.code, error_message: err.message }
            : { error_code: 'internal_error', error_message: 'The extraction failed unexpectedly.' };
          await store.extractions
            .finish(id, { status: 'failed', ...failure, pages: 0, credits_used: 0 })
            .catch((e: unknown) => logger.error({ err: e, extraction_id: id }, 'could not mark extraction failed'));
          throw err;
        }
        logger.info({ extraction_id: id, code: err.code }, 'extraction failed');
        await store.extractions.finish(id, { status: 'failed', error_code: err.code, error_message: err.message, pages: err.pages ?? 0, credits_used: err.pages ?? 0 });
      }
      const record = await store.extractions.get(workspaceId, id);
      // DELETE /v1/extractions/{id} may remove it while it is processing (its id is in the list by then).
      if (!record) throw notFound(`The extraction ${id} was deleted while it was processing.`);
      return record;
    },
  };
}

export type ExtractionService = ReturnType<typeof extractionService>;
