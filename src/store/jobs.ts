import type { Db } from './db.js';
import type { ContentType } from '../extraction/types.js';

/** An asynchronous extraction waiting for, or held by, a worker. */
export interface JobRecord {
  extraction_id: string;
  workspace_id: string;
  file: Buffer;
  content_type: ContentType;
  template_id: string | null;
  /** The languages OCR is to read in, comma-separated ISO 639-1 codes (`de,en`); null for the server's own choice. */
  languages: string | null;
  /** Times a worker has taken the job, this time included. */
  attempts: number;
}

interface Row extends JobRecord {
  /** The instance working on it; null while it waits. */
  claimed_by: string | null;
  /** Epoch ms before which no worker takes it (set when it is put back after a full OCR queue). */
  available_at: number | string;
  created_at: number | string;
}

/** How many waiting jobs one claim looks at, so that workers racing for the first one still find work. */
const CANDIDATES = 8;

/**
 * The database-backed queue of asynchronous extractions, used when there is no Redis. A job stays in
 * the table until its extraction is finished, so that one whose worker stopped (a restart, a crash) is
 * taken again: a claim belongs to an instance, and the claims of instances without a recent heartbeat
 * are free to take.
 */
export function jobsRepository(db: Db) {
  const table = () => db<Row>('extraction_jobs');
  return {
    async enqueue(job: Omit<JobRecord, 'attempts'>, now: number): Promise<void> {
      await table().insert({ ...job, attempts: 0, claimed_by: null, available_at: now, created_at: now });
    },
    /**
     * Takes the oldest available job for `instanceId`: one nobody holds, or one held by an instance
     * not among the live ones (no heartbeat since `staleBefore`). Returns undefined when none is left.
     */
    async claim(instanceId: string, now: number, staleBefore: number): Promise<JobRecord | undefined> {
      const live = db('instances').select('id').where('heartbeat_at', '>=', staleBefore);
      const candidates = await table()
        .select('extraction_id', 'claimed_by')
        .where('available_at', '<=', now)
        .andWhere((q) => q.whereNull('claimed_by').orWhereNotIn('claimed_by', live))
        .orderBy([{ column: 'available_at' }, { column: 'extraction_id' }])
        .limit(CANDIDATES);
      for (const candidate of candidates) {
        // Taken only if nobody took it since it was read: of two workers racing, one updates the row.
        const taken = await table()
          .where({ extraction_id: candidate.extraction_id })
          .andWhere((q) => (candidate.claimed_by === null ? q.whereNull('claimed_by') : q.where('claimed_by', candidate.claimed_by)))
          .update({ claimed_by: instanceId, attempts: db.raw('attempts + 1') });
        if (taken === 1) {
          const row = await table().where({ extraction_id: candidate.extraction_id }).first();
          if (!row) continue;
          const { claimed_by: _c, available_at: _a, created_at: _t, ...job } = row;
          return { ...job, attempts: Number(job.attempts) };
        }
      }
      return undefined;
    },
    /**
     * Puts a job back to be taken from `availableAt` (epoch ms). A failed attempt counts; one that could
     * not start for lack of capacity (the OCR queue was full) does not.
     */
    async putBack(extractionId: string, availableAt: number, attemptCounts: boolean): Promise<void> {
      await table()
        .where({ extraction_id: extractionId })
        .update({ claimed_by: null, available_at: availableAt, ...(attemptCounts ? {} : { attempts: db.raw('attempts - 1') }) });
    },
    /** A job as it is, without taking it (the Redis queue holds the claims itself). */
    async get(extractionId: string): Promise<JobRecord | undefined> {
      const row = await table().where({ extraction_id: extractionId }).first();
      if (!row) return undefined;
      const { claimed_by: _c, available_at: _a, created_at: _t, ...job } = row;
      return { ...job, attempts: Number(job.attempts) };
    },
    async remove(extractionId: string): Promise<void> {
      await table().where({ extraction_id: extractionId }).delete();
    },
    async waiting(): Promise<number> {
      const [{ n }] = await table().whereNull('claimed_by').count({ n: '*' });
      return Number(n);
    },
  };
}

export type JobsRepository = ReturnType<typeof jobsRepository>;
