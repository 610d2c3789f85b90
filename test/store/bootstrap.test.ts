import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapFirstKey } from '../../src/bootstrap.js';
import { openStore, type Store } from '../../src/store/index.js';
import { databases, type TestDatabase } from './databases.js';

// One server per SQLite file (a second is refused at start), so the race exists on PostgreSQL only.
describe.each(databases.filter((d) => d.name === 'postgres'))('the first key ($name)', (kind) => {
  let database: TestDatabase;
  const stores: Store[] = [];

  beforeAll(async () => {
    database = await kind.create();
    // Migrations first, one at a time, as servers do before they bootstrap.
    stores.push(await openStore(database.url));
    for (let i = 0; i < 3; i++) stores.push(await openStore(database.url));
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database?.drop();
  });

  it('is created exactly once when several servers start on one empty database together', async () => {
    const results = await Promise.all(stores.map((s) => bootstrapFirstKey(s)));
    const created = results.filter((r) => r !== null);
    expect(created).toHaveLength(1);
    expect(await stores[0]!.workspaces.count()).toBe(1);
    const found = await stores[1]!.apiKeys.findBySecret(created[0]!.secret);
    expect(found?.key.scopes).toEqual(['extractions:read', 'extractions:write', 'templates:read', 'templates:write', 'webhooks:read', 'webhooks:write']);
    expect(await bootstrapFirstKey(stores[2]!)).toBeNull();
  });
});
