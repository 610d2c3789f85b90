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

/**
 * The kernel stamps a file's modification time from a clock that advances in ticks (4 ms at the usual
 * 250 Hz, 10 ms at 100 Hz), so two writes inside one tick leave the same time. A log younger than this
 * is not trusted.
 */
const SETTLE_MS = 20;

type Stat = (file: string) => { mtimeMs: number; size: number; ino: number } | undefined;
const statFile: Stat = (file) => fs.statSync(file, { throwIfNoEntry: false });

/**
 * SQLite in WAL mode: every committed write, by any connection of any process, is written to the
 * write-ahead log first (a checkpoint then copies what is already committed), so the log's modification
 * time, size and inode make the token: one `stat` a request instead of a query. While the log was
 * written within SETTLE_MS, or is missing (every connection closed it), the token is null, so that a
 * write in the same clock tick as an earlier one, or one committed while a key was being read, cannot
 * hide behind an old token.
 */
export function sqliteFileSignal(file: string, now: () => number = Date.now, stat: Stat = statFile): ChangeSignal {
  const wal = `${file}-wal`;
  return {
    token() {
      const log = stat(wal);
      if (!log || now() - log.mtimeMs < SETTLE_MS) return null;
      return `${log.ino}:${log.mtimeMs}:${log.size}`;
    },
    close: async () => undefined,
  };
}

export const CHANGE_CHANNEL = 'docex_principals';

/** Tells every server on a PostgreSQL database that keys or workspaces changed; delivered when `db`'s transaction commits. */
export async function announceChange(db: Db): Promise<void> {
  if (db.client.config.client === 'pg') await db.raw(`NOTIFY ${CHANGE_CHANNEL}`);
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
