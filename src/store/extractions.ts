import type { Knex } from 'knex';
import type { Db } from './db.js';
import type { components } from '../../generated/openapi.js';

type ExtractionField = components['schemas']['ExtractionField'];
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
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  completed_at: string | null;
  request_id: string | null;
}

interface Row extends Omit<ExtractionRecord, 'fields'> {
  fields: string;
  upload: Buffer | null;
  /** The server instance working on it while `processing` (see instances.ts). */
  owner_instance: string | null;
}

const fromRow = ({ upload: _upload, owner_instance: _owner, fields, ...rest }: Row): ExtractionRecord => ({
  ...rest,
  fields: JSON.parse(fields) as ExtractionField[],
});

/**
 * The API representation: `data` is derived from `fields`, never stored twice. `requestId` is the
 * id of the request being answered (absent for items of a list).
 */
export function toExtraction(r: ExtractionRecord, requestId?: string): Extraction {
  const data: Record<string, string> = {};
  for (const f of r.fields) if (!(f.field in data)) data[f.field] = f.value;
  const { workspace_id: _ws, request_id: _created_by, ...rest } = r;
  return { ...rest, data, ...(requestId ? { request_id: requestId } : {}) };
}

export type ExtractionOutcome =
  | { status: 'completed'; template_id: string | null; confidence: number; pages: number; credits_used: number; fields: ExtractionField[] }
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
     * Records the outcome of a `processing` extraction; false when it was already finished. `announce`
     * runs in the same transaction with the finished record, so what it writes (webhook deliveries)
     * exists exactly when the outcome does.
     */
    async finish(id: string, outcome: ExtractionOutcome, announce?: (trx: Knex.Transaction, record: ExtractionRecord) => Promise<void>): Promise<boolean> {
      const completed_at = new Date().toISOString();
      const changes: Partial<Row> =
        outcome.status === 'completed'
          ? { ...outcome, fields: JSON.stringify(outcome.fields), completed_at }
          : { ...outcome, completed_at };
      if (!announce) return (await table().where({ id, status: 'processing' }).update(changes)) > 0;
      return db.transaction(async (trx) => {
        if ((await trx<Row>('extractions').where({ id, status: 'processing' }).update(changes)) === 0) return false;
        await announce(trx, fromRow((await trx<Row>('extractions').where({ id }).first())!));
        return true;
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
