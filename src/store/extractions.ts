import type { Knex } from 'knex';
import type { Db } from './db.js';
import type { components } from '../../generated/openapi.js';

type ExtractionField = components['schemas']['ExtractionField'];
export type DocumentContent = NonNullable<components['schemas']['DocumentContent']>;
type EInvoice = NonNullable<components['schemas']['EInvoice']>;
export type Extraction = components['schemas']['Extraction'];

export interface ExtractionRecord {
  id: string;
  workspace_id: string;
  status: Extraction['status'];
  file_name: string;
  file_type: Extraction['file_type'];
  template_id: string | null;
  source: Extraction['source'];
  confidence: number | null;
  credits_used: number;
  pages: number;
  fields: ExtractionField[];
  e_invoice: EInvoice | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  completed_at: string | null;
  request_id: string | null;
}

interface Row extends Omit<ExtractionRecord, 'fields' | 'e_invoice'> {
  fields: string;
  e_invoice: string | null;
  upload: Buffer | null;
  /** The server instance working on it while `processing` (see instances.ts). */
  owner_instance: string | null;
}

const fromRow = ({ upload: _upload, owner_instance: _owner, fields, e_invoice, ...rest }: Row): ExtractionRecord => ({
  ...rest,
  fields: JSON.parse(fields) as ExtractionField[],
  e_invoice: e_invoice ? (JSON.parse(e_invoice) as EInvoice) : null,
});

/**
 * The API representation: `data` is derived from `fields`, never stored twice. `requestId` is the
 * id of the request being answered (absent for items of a list).
 */
export function toExtraction(r: ExtractionRecord, requestId?: string): Extraction {
  const data: Record<string, string> = {};
  for (const f of r.fields) if (!(f.field in data)) data[f.field] = f.value;
  const { workspace_id: _ws, request_id: _created_by, ...rest } = r;
  return { ...rest, data, line_items: lineItemRows(r.fields), ...(requestId ? { request_id: requestId } : {}) };
}

const LINE_ITEM = /^line_items\.(\d+)\.([^.]+)$/;

/** `line_items.N.<column>` fields as rows, by N; a row no field names is left out rather than sent empty. */
function lineItemRows(fields: ExtractionField[]): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  for (const f of fields) {
    const m = LINE_ITEM.exec(f.field);
    if (!m) continue;
    const row = (rows[Number(m[1])] ??= {});
    if (!(m[2]! in row)) row[m[2]!] = f.value;
  }
  return rows.filter(Boolean);
}

export type ExtractionOutcome =
  | { status: 'completed'; template_id: string | null; confidence: number; pages: number; credits_used: number; fields: ExtractionField[]; e_invoice?: EInvoice | null; document?: DocumentContent }
  | { status: 'failed'; error_code: string; error_message: string; pages: number; credits_used: number };

/** `instanceId` is the server this store belongs to; new extractions are recorded as its work. */
export function extractionsRepository(db: Db, instanceId: string) {
  const table = () => db<Row>('extractions');
  return {
    async create(
      input: Pick<ExtractionRecord, 'id' | 'workspace_id' | 'file_name' | 'file_type' | 'template_id' | 'source' | 'request_id'>,
      upload: Buffer | null,
    ): Promise<ExtractionRecord> {
      const row: Row = {
        ...input,
        status: 'processing',
        confidence: null,
        credits_used: 0,
        pages: 0,
        fields: '[]',
        e_invoice: null,
        error_code: null,
        error_message: null,
        created_at: new Date().toISOString(),
        completed_at: null,
        upload,
        owner_instance: instanceId,
      };
      await table().insert(row);
      return fromRow(row);
    },
    /**
     * Records the outcome of a `processing` extraction, with the text read from its document when there
     * is one; false when it was already finished. `announce` runs in the same transaction with the
     * finished record, so what it writes (webhook deliveries) exists exactly when the outcome does; a
     * queued extraction's job (and the upload it holds) ends in it too, so no finished extraction is
     * seen with its job still waiting.
     */
    async finish(id: string, outcome: ExtractionOutcome, announce?: (trx: Knex.Transaction, record: ExtractionRecord) => Promise<void>): Promise<boolean> {
      const completed_at = new Date().toISOString();
      const { document, ...result } = outcome.status === 'completed' ? outcome : { ...outcome, document: undefined };
      const changes: Partial<Row> =
        result.status === 'completed'
          ? { ...result, fields: JSON.stringify(result.fields), e_invoice: result.e_invoice ? JSON.stringify(result.e_invoice) : null, completed_at }
          : { ...result, completed_at };
      // Serialised before the transaction begins, so that the connection (SQLite's only one) is not held meanwhile.
      const body = document && JSON.stringify(document);
      return db.transaction(async (trx) => {
        if ((await trx<Row>('extractions').where({ id, status: 'processing' }).update(changes)) === 0) return false;
        if (body) await trx('extraction_documents').insert({ extraction_id: id, body });
        await trx('extraction_jobs').where({ extraction_id: id }).delete();
        await announce?.(trx, fromRow((await trx<Row>('extractions').where({ id }).first())!));
        return true;
      });
    },
    /** The text read from the extraction's document; null when none was stored (or no such extraction). */
    async document(workspace_id: string, id: string): Promise<DocumentContent | null> {
      const row = await db('extraction_documents')
        .join('extractions', 'extractions.id', 'extraction_documents.extraction_id')
        .where({ 'extractions.id': id, 'extractions.workspace_id': workspace_id })
        .first<{ body: string } | undefined>('extraction_documents.body');
      return row ? (JSON.parse(row.body) as DocumentContent) : null;
    },
    /** Deletes the extraction with its document text and stored upload; false when there was none in the workspace. */
    async delete(workspace_id: string, id: string): Promise<boolean> {
      return db.transaction(async (trx) => {
        const owned = await trx<Row>('extractions').where({ id, workspace_id }).first('id');
        if (!owned) return false;
        await trx('extraction_documents').where({ extraction_id: id }).delete();
        await trx<Row>('extractions').where({ id, workspace_id }).delete();
        return true;
      });
    },
    /**
     * Deletes up to `limit` finished extractions created before `before` (ISO timestamp), oldest first,
     * with their document text; returns how many. Small batches keep each transaction short.
     */
    async deleteCreatedBefore(before: string, limit: number): Promise<number> {
      return db.transaction(async (trx) => {
        const ids = (await trx<Row>('extractions').where('created_at', '<', before).whereNot({ status: 'processing' }).orderBy('created_at').limit(limit).select('id')).map((r) => r.id);
        if (ids.length === 0) return 0;
        await trx('extraction_documents').whereIn('extraction_id', ids).delete();
        await trx<Row>('extractions').whereIn('id', ids).delete();
        return ids.length;
      });
    },
    async get(workspace_id: string, id: string): Promise<ExtractionRecord | undefined> {
      const row = await table().where({ id, workspace_id }).first();
      return row && fromRow(row);
    },
    /** Newest first; `startingAfter` is the last id of the previous page. */
    async list(workspace_id: string, limit: number, startingAfter?: string): Promise<{ rows: ExtractionRecord[]; hasMore: boolean }> {
      const q = table().where({ workspace_id }).orderBy('id', 'desc').limit(limit + 1);
      if (startingAfter) q.andWhere('id', '<', startingAfter);
      const rows = (await q).map(fromRow);
      return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
    },
    /**
     * Marks as failed the extractions left `processing` by a server that is gone: no owner recorded, or
     * an owner without a heartbeat since `staleBefore` (epoch ms). Live servers' work is left alone, and
     * so are asynchronous extractions still queued, which a worker takes again. Returns how many there were.
     */
    async failInterrupted(staleBefore: number): Promise<number> {
      return table()
        .where({ status: 'processing' })
        .whereNotExists(db('extraction_jobs').select('extraction_id').whereRaw('extraction_jobs.extraction_id = extractions.id'))
        .andWhere((q) =>
          q
            .whereNull('owner_instance')
            .orWhereNotIn('owner_instance', db('instances').select('id').where('heartbeat_at', '>=', staleBefore)),
        )
        .update({
          status: 'failed',
          error_code: 'interrupted',
          error_message: 'The server stopped while this extraction was processing. Send the document again.',
          completed_at: new Date().toISOString(),
          upload: null,
        });
    },
  };
}

export type ExtractionsRepository = ReturnType<typeof extractionsRepository>;
