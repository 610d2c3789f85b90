import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { openDb, dialectOf, sqliteFilename, type Db, type Dialect } from './db.js';
import { migrate } from './migrations.js';
import { workspacesRepository } from './workspaces.js';
import { apiKeysRepository, type Principal } from './api-keys.js';
import { extractionsRepository } from './extractions.js';
import { templatesRepository } from './templates.js';
import { instancesRepository } from './instances.js';
import { idempotencyRepository } from './idempotency.js';
import { jobsRepository } from './jobs.js';
import { webhooksRepository } from './webhooks.js';
import { principalCache } from './principal-cache.js';
import { noSignal, ownChangesOnly, postgresNotifySignal, sqliteLogSignal, type ChangeSignal } from './change-signal.js';

export interface Store {
  db: Db;
  dialect: Dialect;
  /** This process's identity among the servers sharing the database. */
  instanceId: string;
  instances: ReturnType<typeof instancesRepository>;
  workspaces: ReturnType<typeof workspacesRepository>;
  apiKeys: ReturnType<typeof apiKeysRepository>;
  extractions: ReturnType<typeof extractionsRepository>;
  templates: ReturnType<typeof templatesRepository>;
  idempotency: ReturnType<typeof idempotencyRepository>;
  jobs: ReturnType<typeof jobsRepository>;
  webhooks: ReturnType<typeof webhooksRepository>;
  /**
   * Runs `work` in one transaction, with the repositories of rows written together bound to it: a
   * queued extraction and its job exist together or not at all, and are one commit (one wait for
   * the database's single writer or its disk, not two).
   */
  transaction<T>(work: (tx: Pick<Store, 'extractions' | 'jobs'>) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /**
   * Remember authenticated keys until the database signals a change (servers); off by default, so a
   * tool that authenticates nobody opens no listening connection.
   */
  cacheKeys?: boolean;
}

async function changeSignal(databaseUrl: string): Promise<ChangeSignal> {
  if (dialectOf(databaseUrl) === 'postgres') return postgresNotifySignal(databaseUrl);
  const file = sqliteFilename(databaseUrl);
  return file === ':memory:' ? ownChangesOnly : sqliteLogSignal(path.resolve(file));
}

/** Opens the database, runs migrations and returns one repository per table. */
export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  const db = openDb(databaseUrl);
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const signal = options.cacheKeys ? await changeSignal(databaseUrl) : noSignal;
  const principals = principalCache<Principal>(signal);
  const instanceId = `inst_${randomBytes(12).toString('hex')}`;
  return {
    db,
    dialect: dialectOf(databaseUrl),
    instanceId,
    instances: instancesRepository(db),
    workspaces: workspacesRepository(db, principals),
    apiKeys: apiKeysRepository(db, principals),
    extractions: extractionsRepository(db, instanceId),
    templates: templatesRepository(db),
    idempotency: idempotencyRepository(db),
    jobs: jobsRepository(db),
    webhooks: webhooksRepository(db),
    transaction: (work) => db.transaction((trx) => work({ extractions: extractionsRepository(trx, instanceId), jobs: jobsRepository(trx) })),
    async ping() {
      await db.raw('select 1');
    },
    async close() {
      await signal.close();
      await db.destroy();
    },
  };
}
