import type { Context as Ctx } from 'koa';
import type { OperationInput } from '../http/dispatch.js';
import type { components } from '../../generated/openapi.js';
import { notFound } from '../errors.js';
import type { Store } from '../store/index.js';
import { toExtraction, type Extraction, type ExtractionRecord } from '../store/extractions.js';
import type { ExtractionService } from '../services/extractions.js';
import { cursor, pageSize } from './pagination.js';

type ExtractionList = components['schemas']['ExtractionList'];

/** Whether a `Prefer` header (RFC 7240: comma-separated preferences, each with optional parameters) asks for `respond-async`. */
export function prefersAsync(prefer: string): boolean {
  return prefer.split(',').some((preference) => preference.split(';')[0].trim().toLowerCase() === 'respond-async');
}

export function extractionHandlers(store: Store, extractions: ExtractionService) {
  /** The extraction as answered, with its document text when the request asks for it (`include=document`). */
  async function answer(c: OperationInput, record: ExtractionRecord, requestId: string): Promise<Extraction> {
    const extraction = toExtraction(record, requestId);
    if (c.query.include !== 'document') return extraction;
    return { ...extraction, document: await store.extractions.document(record.workspace_id, record.id) };
  }

  return {
    async createExtraction(c: OperationInput, ctx: Ctx) {
      const { principal, requestId } = ctx.state;
      if (prefersAsync(ctx.get('Prefer'))) {
        const queued = await extractions.enqueue(principal!.workspace.id, c.requestBody, requestId);
        ctx.status = 202;
        ctx.set('Location', `/v1/extractions/${queued.id}`);
        ctx.set('Preference-Applied', 'respond-async');
        ctx.body = toExtraction(queued, requestId);
        return;
      }
      const record = await extractions.create(principal!.workspace.id, c.requestBody, requestId);
      ctx.status = 201;
      ctx.set('Location', `/v1/extractions/${record.id}`);
      ctx.body = await answer(c, record, requestId);
    },
    async getExtraction(c: OperationInput, ctx: Ctx) {
      const id = String(c.params.id);
      const record = await store.extractions.get(ctx.state.principal!.workspace.id, id);
      if (!record) throw notFound(`No such extraction ${id}.`);
      ctx.body = await answer(c, record, ctx.state.requestId);
    },
    async deleteExtraction(c: OperationInput, ctx: Ctx) {
      // Idempotent: an id that is not (or no longer) in the workspace is answered like a deletion.
      await store.extractions.delete(ctx.state.principal!.workspace.id, String(c.params.id));
      ctx.status = 204;
    },
    async listExtractions(c: OperationInput, ctx: Ctx) {
      const page = await store.extractions.list(ctx.state.principal!.workspace.id, pageSize(c.query), cursor(c.query));
      const body: ExtractionList = { object: 'list', data: page.rows.map((r) => toExtraction(r)), has_more: page.hasMore };
      ctx.body = body;
    },
  };
}
