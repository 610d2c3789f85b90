import { openDb, dialectOf, type Db, type Dialect } from './db.js';
import { migrate } from './migrations.js';
import { workspacesRepository } from './workspaces.js';
import { apiKeysRepository } from './api-keys.js';
import { extractionsRepository } from './extractions.js';
import { templatesRepository } from './templates.js';

export interface Store {
  db: Db;
  dialect: Dialect;
  workspaces: ReturnType<typeof workspacesRepository>;
  apiKeys: ReturnType<typeof apiKeysRepository>;
  extractions: ReturnType<typeof extractionsRepository>;
  templates: ReturnType<typeof templatesRepository>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the database, runs migrations and returns one repository per table. */
export async function openStore(databaseUrl: string): Promise<Store> {
  const db = openDb(databaseUrl);
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return {
    db,
    dialect: dialectOf(databaseUrl),
    workspaces: workspacesRepository(db),
    apiKeys: apiKeysRepository(db),
    extractions: extractionsRepository(db),
    templates: templatesRepository(db),
    async ping() {
      await db.raw('select 1');
    },
    close: () => db.destroy(),
  };
}
