import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import knex from 'knex';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface DatabaseKind {
  name: 'sqlite' | 'postgres';
  /** A new, empty database of this kind. */
  create(): Promise<TestDatabase>;
}

const requireServices = process.env.REQUIRE_SERVICES === '1';
const postgresServer = process.env.TEST_DATABASE_URL?.trim() || null;

if (requireServices && !postgresServer) {
  throw new Error('REQUIRE_SERVICES=1 but TEST_DATABASE_URL is not set: the suites must run on PostgreSQL too');
}

export const sqlite: DatabaseKind = {
  name: 'sqlite',
  async create() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-store-'));
    return { url: `sqlite:${path.join(dir, 'docex.sqlite')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  },
};

/** A fresh database on the TEST_DATABASE_URL server per call, so parallel runs never share tables. */
export function postgres(serverUrl: string): DatabaseKind {
  return {
    name: 'postgres',
    async create() {
      const name = `docex_test_${randomBytes(6).toString('hex')}`;
      const admin = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
      try {
        // A linguistic collation, as production databases often have, so that ordering that only works
        // under byte order ("C") shows up here; plain CREATE DATABASE where ICU is unavailable.
        await admin.raw(`CREATE DATABASE ?? TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C.UTF-8'`, [name]).catch(() => admin.raw('CREATE DATABASE ??', [name]));
      } finally {
        await admin.destroy();
      }
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        async drop() {
          const dropper = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
          try {
            await dropper.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
          } finally {
            await dropper.destroy();
          }
        },
      };
    },
  };
}

/** SQLite always; PostgreSQL when TEST_DATABASE_URL is set (mandatory with REQUIRE_SERVICES=1). */
export const databases: DatabaseKind[] = postgresServer ? [sqlite, postgres(postgresServer)] : [sqlite];

/** TEST_REDIS_URL, or null; with REQUIRE_SERVICES=1 a missing one fails the suite instead of skipping. */
export function testRedisUrl(): string | null {
  const url = process.env.TEST_REDIS_URL?.trim() || null;
  if (!url && requireServices) throw new Error('REQUIRE_SERVICES=1 but TEST_REDIS_URL is not set');
  return url;
}
