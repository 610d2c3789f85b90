import type { Db } from './db.js';

interface Row {
  id: string;
  started_at: number | string;
  heartbeat_at: number | string;
}

/**
 * Running servers sharing this database. A server registers on start, beats a heartbeat while it
 * runs and deregisters on a clean stop; one whose heartbeat is older than the stale threshold is
 * taken to be gone (crashed or killed), and so is its unfinished work.
 */
export function instancesRepository(db: Db) {
  const table = () => db<Row>('instances');
  return {
    async register(id: string, now: number): Promise<void> {
      await table().insert({ id, started_at: now, heartbeat_at: now });
    },
    async heartbeat(id: string, now: number): Promise<void> {
      const updated = await table().where({ id }).update({ heartbeat_at: now });
      // Another server may have pruned this one after a long pause (e.g. a suspended VM): come back.
      if (updated === 0) await table().insert({ id, started_at: now, heartbeat_at: now });
    },
    async deregister(id: string): Promise<void> {
      await table().where({ id }).delete();
    },
    /** Forgets instances whose last heartbeat is before `staleBefore` (epoch ms); returns how many. */
    async prune(staleBefore: number): Promise<number> {
      return table().where('heartbeat_at', '<', staleBefore).delete();
    },
    async live(staleBefore: number): Promise<string[]> {
      return (await table().where('heartbeat_at', '>=', staleBefore).select('id')).map((r) => r.id);
    },
  };
}

export type InstancesRepository = ReturnType<typeof instancesRepository>;

export interface InstanceLifecycle {
  /** Stops the heartbeat and deregisters, so other servers know at once that this one left. */
  stop(): Promise<void>;
}

/**
 * Registers this server and keeps it alive: every third of `staleMs` it beats its heartbeat and sweeps
 * the work of servers that stopped beating (their `processing` extractions become failed with
 * `interrupted`). The first sweep runs at start. `onSwept` reports how many extractions a sweep failed.
 */
export async function startInstance(
  deps: {
    instanceId: string;
    instances: InstancesRepository;
    failInterrupted(staleBefore: number): Promise<number>;
    exclusive: boolean;
    /** Other periodic clean-up (expired idempotency keys), run with each sweep. */
    housekeeping?(now: number): Promise<void>;
  },
  staleMs: number,
  onSwept: (count: number) => void,
  onError: (err: unknown) => void,
): Promise<InstanceLifecycle> {
  const sweep = async (staleBefore = Date.now() - staleMs) => {
    await deps.instances.prune(staleBefore);
    const count = await deps.failInterrupted(staleBefore);
    if (count > 0) onSwept(count);
    await deps.housekeeping?.(Date.now());
  };
  // A database only one server can use (SQLite) has no other live server: everything unfinished
  // at start was left by a previous run and fails at once instead of after the stale threshold.
  if (deps.exclusive) await sweep(Number.MAX_SAFE_INTEGER);
  await deps.instances.register(deps.instanceId, Date.now());
  await sweep();
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = (async () => {
      await deps.instances.heartbeat(deps.instanceId, Date.now());
      await sweep();
    })().catch(onError);
  }, Math.floor(staleMs / 3));
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await deps.instances.deregister(deps.instanceId);
    },
  };
}
