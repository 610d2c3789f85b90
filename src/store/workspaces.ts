import type { PrincipalCache } from './principal-cache.js';
import { announcingChange } from './change-signal.js';
import type { Db } from './db.js';
import { newId } from '../ids.js';
import { limitsFor, type Limits, type Plan } from '../limits/plans.js';

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  per_minute: number | null;
  per_day: number | null;
  created_at: string;
  deleted_at: string | null;
}

export interface NewWorkspace {
  name: string;
  plan: Plan;
  per_minute?: number | null;
  per_day?: number | null;
}

export function workspaceLimits(ws: Workspace): Limits {
  return limitsFor(ws.plan, ws);
}

/** `principals` is the key cache, emptied when a workspace's plan, limits or deletion change. */
export function workspacesRepository(db: Db, principals: PrincipalCache<unknown>) {
  const table = () => db<Workspace>('workspaces');
  return {
    async create(input: NewWorkspace): Promise<Workspace> {
      const ws: Workspace = {
        id: newId('ws'),
        name: input.name,
        plan: input.plan,
        per_minute: input.per_minute ?? null,
        per_day: input.per_day ?? null,
        created_at: new Date().toISOString(),
        deleted_at: null,
      };
      workspaceLimits(ws);
      await table().insert(ws);
      return ws;
    },
    async get(id: string): Promise<Workspace | undefined> {
      return table().where({ id }).first();
    },
    async list(): Promise<Workspace[]> {
      return table().whereNull('deleted_at').orderBy('id');
    },
    async count(): Promise<number> {
      const row = await table().count<{ n: number | string }[]>({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async update(id: string, changes: Partial<Pick<Workspace, 'plan' | 'per_minute' | 'per_day' | 'deleted_at'>>): Promise<Workspace | undefined> {
      const current = await this.get(id);
      if (!current) return undefined;
      const next = { ...current, ...changes };
      workspaceLimits(next);
      await announcingChange(db, (trx) => trx('workspaces').where({ id }).update(changes));
      principals.clear();
      return next;
    },
  };
}
