import fs from 'node:fs';
import pg from 'pg';
import type { Db } from './db.js';

/**
 * Tells a server whether API keys or workspaces may have changed in the database, whoever changed them:
 * this process, the `docex` CLI or another server. Authenticated keys are remembered only while the
 * token they were read under is still current.
 */
export interface ChangeSignal {
  /** A token that differs whenever the database may have changed since; null when that cannot be told now. */
  token(): string | null;
  close(): Promise<void>;
}

/** Nothing may be remembered (tools and transactions that authenticate nobody). */
export const noSignal: ChangeSignal = { token: () => null, close: async () => undefined };

/** An in-memory SQLite database belongs to this process alone, whose own changes empty the cache. */
export const ownChangesOnly: ChangeSignal = { token: () => 'own', close: async () => undefined };

/** The file beside an SQLite database that grows by one byte at each change of keys or workspaces. */
export function changeLog(databaseFile: string): string {
  return `${databaseFile}-changes`;
}

/**
 * SQLite: every change made through the store appends a byte to the change log after it commits (see
 * `announcingChange`), so the log's size (with its inode and time, should it be deleted and made anew)
 * makes the token, at one `stat` a request instead of a query. A server that sees the new size
 * therefore also sees the change; a key read before it was written is stored under the old size and
 * never served again. The server's own busier writes (extractions, rate-limit counters) leave the log
 * alone. A missing log gives no token.
 */
export function sqliteLogSignal(databaseFile: string): ChangeSignal {
  const log = changeLog(databaseFile);
  // Created (empty) if missing, so that keys can be remembered before the first change.
  fs.appendFileSync(log, '');
  return {
    token() {
      const s = fs.statSync(log, { throwIfNoEntry: false });
      return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : null;
    },
    close: async () => undefined,
  };
}

export const CHANGE_CHANNEL = 'docex_principals';

/**
 * Runs `work` in a transaction and tells every server that keys or workspaces changed: on PostgreSQL
 * a NOTIFY in the same transaction, delivered at its commit; on SQLite a byte appended to the change
 * log once the transaction has committed, never before, so that no server re-reads the old state
 * under the new token. `db` must not itself be a transaction, whose commit would come later.
 */
export async function announcingChange<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  const pgDb = db.client.config.client === 'pg';
  const result = await db.transaction(async (trx) => {
    const done = await work(trx);
    if (pgDb) await trx.raw(`NOTIFY ${CHANGE_CHANNEL}`);
    return done;
  });
  if (!pgDb) {
    const file = (db.client.config.connection as { filename: string }).filename;
    if (file !== ':memory:') fs.appendFileSync(changeLog(file), '.');
  }
  return result;
}

const RECONNECT_MAX_MS = 2000;

/**
 * PostgreSQL: one connection LISTENs on CHANGE_CHANNEL, and every change made through the store
 * NOTIFYs it in the change's own transaction; each notification moves the token on. While that
 * connection is down (and until it listens again) the token is null, so keys are read from the
 * database on every request rather than trusted from memory.
 */
export async function postgresNotifySignal(url: string): Promise<ChangeSignal> {
  let generation = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let attempt = 0;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, keepAlive: true });
    client = c;
    const lost = () => {
      if (client !== c) return;
      listening = false;
      client = null;
      c.end().catch(() => undefined);
      if (!closed) {
        attempt += 1;
        retry = setTimeout(() => void connect(), Math.min(attempt * 200, RECONNECT_MAX_MS));
      }
    };
    c.on('notification', () => {
      generation += 1;
    });
    c.on('error', lost);
    c.on('end', () => lost());
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGE_CHANNEL}`);
      if (client !== c) return;
      // Anything may have changed while nobody listened.
      generation += 1;
      listening = true;
      attempt = 0;
    } catch {
      lost();
    }
  };
  await connect();

  return {
    token: () => (listening ? String(generation) : null),
    async close() {
      closed = true;
      clearTimeout(retry);
      listening = false;
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
