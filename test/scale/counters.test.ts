import { afterAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { openStore, type Store } from '../../src/store/index.js';
import { createRateLimiter } from '../../src/limits/rate-limiter.js';
import { memoryCounters, postgresCounters, redisCounters, sqliteCounters, type CounterBackend } from '../../src/limits/counters.js';
import { openRedis } from '../../src/limits/redis.js';
import { createLogger } from '../../src/logger.js';
import { databases, testRedisUrl, type TestDatabase } from '../store/databases.js';

const FREE = { per_minute: 10, per_day: 25 };

/** 50 requests at once, alternating between two limiters that share one counter store. */
async function burst(first: CounterBackend, second: CounterBackend): Promise<{ allowed: number; refused: number }> {
  const limiters = [createRateLimiter(first), createRateLimiter(second)];
  const subject = `key_${randomBytes(8).toString('hex')}`;
  const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => limiters[i % 2].consume(subject, FREE)));
  const allowed = decisions.filter((d) => d.allowed).length;
  return { allowed, refused: decisions.length - allowed };
}

// SQLite is one server's store: its counters are shared by the requests of one process (two processes on one
// SQLite file are not supported). PostgreSQL is shared by several servers, so it is tested with two pools.
describe.each(databases)('rate-limit counters in the database ($name)', (kind) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
  });

  it('let exactly the plan’s 10 of 50 concurrent requests through', async () => {
    const database: TestDatabase = await kind.create();
    cleanup.push(() => database.drop());
    const stores: Store[] = [];
    for (let i = 0; i < (kind.name === 'postgres' ? 2 : 1); i++) {
      const store = await openStore(database.url);
      cleanup.push(() => store.close());
      stores.push(store);
    }
    const counters = await Promise.all(stores.map((s) => (s.dialect === 'postgres' ? postgresCounters(s.db) : sqliteCounters(s.db))));
    expect(await burst(counters[0], counters.at(-1)!)).toEqual({ allowed: 10, refused: 40 });
  });

  it('add to each counter in turn only while the counts stay within their limits', async () => {
    const database: TestDatabase = await kind.create();
    cleanup.push(() => database.drop());
    const store = await openStore(database.url);
    cleanup.push(() => store.close());
    await expectAddWithin(store.dialect === 'postgres' ? await postgresCounters(store.db) : await sqliteCounters(store.db));
  });
});

/**
 * A minute of limit 1 and a day of limit 5: the second request's minute is past its limit, and its day
 * is left alone. `prefix` keeps the keys apart in a store other runs share (Redis).
 */
async function expectAddWithin(counters: CounterBackend, prefix = ''): Promise<void> {
  const steps = [
    { key: `${prefix}minute`, ttlSeconds: 120, limit: 1 },
    { key: `${prefix}day`, ttlSeconds: 172_800, limit: 5 },
  ];
  expect(await counters.addWithin(steps)).toEqual([1, 1]);
  expect(await counters.addWithin(steps)).toEqual([2]);
  expect(await counters.get(`${prefix}minute`)).toBe(2);
  expect(await counters.get(`${prefix}day`)).toBe(1);
}

it('memory counters add within their limits in turn', async () => {
  await expectAddWithin(memoryCounters());
});

const redisUrl = testRedisUrl();

describe.runIf(redisUrl)('rate-limit counters in Redis, two clients', () => {
  it('let exactly the plan’s 10 of 50 concurrent requests through', async () => {
    const logger = createLogger('silent');
    const clients = [await openRedis(redisUrl!, logger), await openRedis(redisUrl!, logger)];
    try {
      expect(await burst(redisCounters(clients[0]), redisCounters(clients[1]))).toEqual({ allowed: 10, refused: 40 });
    } finally {
      await Promise.all(clients.map((c) => c.quit()));
    }
  });

  it('add to each counter in turn only while the counts stay within their limits', async () => {
    const client = await openRedis(redisUrl!, createLogger('silent'));
    try {
      await expectAddWithin(redisCounters(client), `${randomBytes(8).toString('hex')}:`);
    } finally {
      await client.quit();
    }
  });

  it('fail fast while Redis cannot be reached', async () => {
    const client = await openRedis('redis://127.0.0.1:1', createLogger('silent'));
    try {
      const limiter = createRateLimiter(redisCounters(client));
      await expect(limiter.consume('key_down', FREE)).rejects.toThrow();
    } finally {
      client.disconnect();
    }
  });
});

describe('SQLite counters (memory, written through once a second and on close)', () => {
  it('keep their counts across a restart and forget expired ones', async () => {
    const database = await databases[0].create();
    try {
      let now = 1_000_000;
      const clock = () => now;
      let store = await openStore(database.url);
      let counters = await sqliteCounters(store.db, clock);
      expect(await counters.add('day', 1, 100)).toBe(1);
      expect(await counters.add('day', 1, 100)).toBe(2);
      expect(await counters.add('day', -1, 100)).toBe(1);
      await counters.add('short', 1, 1);
      await counters.close();
      await store.close();

      now += 2000;
      store = await openStore(database.url);
      counters = await sqliteCounters(store.db, clock);
      expect(await counters.get('day')).toBe(1);
      expect(await counters.get('short')).toBe(0);
      expect(await counters.add('short', 1, 1)).toBe(1);
      await counters.close();
      expect(await store.db('rate_limit_counters').orderBy('key').select('key', 'points')).toEqual([
        { key: 'day', points: 1 },
        { key: 'short', points: 1 },
      ]);
      await store.close();
    } finally {
      await database.drop();
    }
  });
});
