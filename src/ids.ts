import { getRandomValues } from 'node:crypto';
import { monotonicFactory } from 'ulid';

export type IdPrefix = 'ext' | 'key' | 'ws' | 'tpl' | 'req' | 'wh' | 'evt' | 'dlv';

// Monotonic so that ids made in the same millisecond still sort in creation order (lists are ordered by id).
// ulid's default generator asks the OS for one byte per character (16 calls per id, a measurable share
// of a request); this draws the same CSPRNG bytes from a pool refilled 4 KiB at a time.
const pool = new Uint8Array(4096);
let next = pool.length;
function prng(): number {
  if (next === pool.length) {
    getRandomValues(pool);
    next = 0;
  }
  return pool[next++] / 256;
}
const ulid = monotonicFactory(prng);

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
