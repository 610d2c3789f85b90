import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { startInstance } from '../../src/store/instances.js';
import { newId } from '../../src/ids.js';
import { databases, type TestDatabase } from './databases.js';

const STALE_MS = 60_000;

async function processing(store: Store, workspaceId: string): Promise<string> {
  const id = newId('ext');
  await store.extractions.create({ id, workspace_id: workspaceId, file_name: 'a.png', file_type: 'image/png', template_id: null, source: 'api', request_id: null }, null);
  return id;
}

describe.each(databases)('servers sharing one database ($name)', (kind) => {
  let database: TestDatabase;
  let a: Store;
  let b: Store;
  let workspaceId: string;

  beforeAll(async () => {
    database = await kind.create();
    a = await openStore(database.url);
    b = await openStore(database.url);
    workspaceId = (await a.workspaces.create({ name: 'w', plan: 'free' })).id;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  const lifecycle = (store: Store, swept: number[] = [], exclusive = false) =>
    startInstance(
      { instanceId: store.instanceId, instances: store.instances, failInterrupted: (before) => store.extractions.failInterrupted(before), exclusive },
      STALE_MS,
      (n) => swept.push(n),
      (err) => {
        throw err;
      },
    );

  it('a server with the database to itself (SQLite) fails every unfinished extraction at start, heartbeat or not', async () => {
    const running = await lifecycle(a);
    const leftOver = await processing(a, workspaceId);
    const swept: number[] = [];
    const restarted = await lifecycle(b, swept, true);
    expect(swept).toEqual([1]);
    expect((await b.extractions.get(workspaceId, leftOver))?.error_code).toBe('interrupted');
    await restarted.stop();
    await running.stop();
  });

  it('a starting server leaves a live server’s processing extraction alone', async () => {
    const running = await lifecycle(a);
    const inFlight = await processing(a, workspaceId);
    const swept: number[] = [];
    const starting = await lifecycle(b, swept);
    expect(swept).toEqual([]);
    expect((await a.extractions.get(workspaceId, inFlight))?.status).toBe('processing');
    await a.extractions.finish(inFlight, { status: 'failed', error_code: 'x', error_message: 'y', pages: 0, credits_used: 0 });
    await starting.stop();
    await running.stop();
  });

  it('fails the work of a server that stopped beating, of one that deregistered, and of unowned rows', async () => {
    const ownerGone = await processing(a, workspaceId);
    // A server whose last heartbeat is older than the threshold: crashed or frozen.
    await a.instances.register(a.instanceId, Date.now() - STALE_MS - 1000);
    const legacy = newId('ext');
    await a.db('extractions').insert({
      id: legacy, workspace_id: workspaceId, status: 'processing', file_name: 'b.png', file_type: 'image/png', template_id: null,
      source: 'api', confidence: null, credits_used: 0, pages: 0, fields: '[]', error_code: null, error_message: null,
      created_at: new Date().toISOString(), completed_at: null, request_id: null, upload: Buffer.from('x'), owner_instance: null,
    });
    const swept: number[] = [];
    const starting = await lifecycle(b, swept);
    expect(swept).toEqual([2]);
    for (const id of [ownerGone, legacy]) {
      expect(await a.extractions.get(workspaceId, id)).toMatchObject({ status: 'failed', error_code: 'interrupted', completed_at: expect.any(String) });
    }
    expect((await a.db('extractions').where({ id: legacy }).first()).upload).toBeNull();
    // The stale instance was forgotten; the starting one is registered.
    expect(await a.instances.live(0)).toEqual([b.instanceId]);
    await starting.stop();
    expect(await a.instances.live(0)).toEqual([]);
  });

  it('a heartbeat after being pruned registers the server again', async () => {
    await a.instances.register(a.instanceId, 1000);
    expect(await a.instances.prune(2000)).toBe(1);
    await a.instances.heartbeat(a.instanceId, Date.now());
    expect(await a.instances.live(Date.now() - 1000)).toEqual([a.instanceId]);
    await a.instances.deregister(a.instanceId);
  });
});
