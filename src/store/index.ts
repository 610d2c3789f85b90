import { randomBytes } from 'node:crypto';
import { openDb, dialectOf, type Db, type Dialect } from './db.js';
import { migrate } from './migrations.js';
import { workspacesRepository } from './workspaces.js';
import { apiKeysRepository, type Principal } from './api-keys.js';
import { extractionsRepository } from './extractions.js';
import { templatesRepository } from './templates.js';
import { instancesRepository } from './instances.js';
import { ttlCache } from './ttl-cache.js';

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
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** How long an authenticated key is remembered; 0 (the default, for tools) queries every time. */
  keyCacheMs?: number;
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
  const principals = ttlCache<Principal>(options.keyCacheMs ?? 0);
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
    async ping() {
      await db.raw('select 1');
    },
    close: () => db.destroy(),
  };
}
