import { monotonicFactory } from 'ulid';

export type IdPrefix = 'ext' | 'key' | 'ws' | 'tpl' | 'req';

// Monotonic so that ids made in the same millisecond still sort in creation order (lists are ordered by id).
const ulid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
