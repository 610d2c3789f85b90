import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';

export type Db = Knex;
export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(databaseUrl: string): Dialect {
  return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

/** The file of a `sqlite:` URL, or `:memory:`. */
export function sqliteFilename(databaseUrl: string): string {
  return databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
}

/** One knex instance for `sqlite:/path/file.sqlite` (the embedded default) or `postgres://...`. */
export function openDb(databaseUrl: string): Db {
  if (dialectOf(databaseUrl) === 'postgres') {
    return knex({
      client: 'pg',
      connection: databaseUrl,
      pool: { min: 0, max: 10 },
      acquireConnectionTimeout: 5000,
      // knex prints connection failures to the console, outside the JSON log; they reach the caller as
      // rejected queries anyway (a 503, logged there, or a failed readiness check).
      log: { warn: () => undefined, error: () => undefined },
    });
  }
  const filename = sqliteFilename(databaseUrl);
  if (filename !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  return knex({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // One connection, so that this process's queries wait their turn in the pool, first come first
    // served. With several, SQLite's single writer made the others wait in its busy handler, which
    // sleeps (up to 100 ms a try) on a libuv thread and lets a later writer in first: while queued
    // scans drained, a POST's first write waited up to 2 s (docs/benchmarks.md, `bench:queue`).
    // Concurrent key lookups no longer need more: authenticated keys are remembered.
    pool: {
      min: 1,
      max: 1,
      // WAL lets another process read while one writes; busy_timeout waits for another process's lock instead of failing at once.
      afterCreate(conn: { exec: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, conn: unknown) => void) {
        conn.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;', (err) => done(err, conn));
      },
    },
  });
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'SQLITE_READONLY',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006',
]);

/** Whether an error means the database cannot be reached or written right now (a 503), rather than a bug (a 500). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: string; name?: string; message?: string };
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return /Connection terminated|connect ECONNREFUSED|Knex: Timeout acquiring a connection/.test(e.message ?? '');
}
