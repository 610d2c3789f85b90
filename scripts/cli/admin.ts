import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { openStore, type Store } from '../../src/store/index.js';
import { isPlan, type Plan } from '../../src/limits/plans.js';
import type { Scope } from '../../src/store/api-keys.js';
import { UsageError } from './usage.js';

const SCOPES: Scope[] = ['extractions:read', 'extractions:write', 'templates:read', 'templates:write', 'webhooks:read', 'webhooks:write'];

function plan(value: string | undefined): Plan {
  if (!value || !isPlan(value)) throw new UsageError(`--plan must be one of free, basic, pro, business, enterprise (got ${value ?? 'nothing'})`);
  return value;
}

function positive(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`--${name} must be a positive whole number (got ${value})`);
  return Number(value);
}

function scopes(value: string | undefined): Scope[] {
  if (!value) throw new UsageError(`--scopes is required: a comma-separated list of ${SCOPES.join(', ')}`);
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((s) => !SCOPES.includes(s as Scope));
  if (unknown.length || list.length === 0) throw new UsageError(`unknown scope ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  return [...new Set(list)] as Scope[];
}

function required(name: string, value: string | undefined): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  'per-minute': { type: 'string' },
  'per-day': { type: 'string' },
  workspace: { type: 'string' },
  scopes: { type: 'string' },
} as const;

async function run(store: Store, resource: string, action: string, args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  const limits = () => ({ per_minute: positive('per-minute', values['per-minute']), per_day: positive('per-day', values['per-day']) });
  const customLimitsCheck = (p: Plan, l: { per_minute: number | null; per_day: number | null }) => {
    if (p === 'enterprise' && (l.per_minute === null || l.per_day === null)) throw new UsageError('the enterprise plan needs --per-minute and --per-day');
  };
  const target = (kind: string) => {
    const id = positionals[0];
    if (!id) throw new UsageError(`give the ${kind} id`);
    return id;
  };
  switch (`${resource} ${action}`) {
    case 'workspace create': {
      const p = plan(values.plan);
      const l = limits();
      customLimitsCheck(p, l);
      return store.workspaces.create({ name: required('name', values.name), plan: p, ...l });
    }
    case 'workspace list':
      return store.workspaces.list();
    case 'workspace set-plan': {
      const p = plan(values.plan);
      const l = limits();
      customLimitsCheck(p, l);
      const ws = await store.workspaces.update(target('workspace'), { plan: p, ...l });
      if (!ws) throw new Error(`no such workspace ${positionals[0]}`);
      return ws;
    }
    case 'workspace delete': {
      const ws = await store.workspaces.update(target('workspace'), { deleted_at: new Date().toISOString() });
      if (!ws) throw new Error(`no such workspace ${positionals[0]}`);
      return ws;
    }
    case 'key create': {
      const workspaceId = required('workspace', values.workspace);
      const ws = await store.workspaces.get(workspaceId);
      if (!ws || ws.deleted_at) throw new Error(`no such workspace ${workspaceId}`);
      const { key, secret } = await store.apiKeys.create({ workspace_id: workspaceId, name: required('name', values.name), scopes: scopes(values.scopes) });
      return { ...key, key: secret, note: 'The key is shown once and stored only as a hash.' };
    }
    case 'key list':
      return store.apiKeys.listByWorkspace(required('workspace', values.workspace));
    case 'key revoke': {
      const key = await store.apiKeys.revoke(target('key'));
      if (!key) throw new Error(`no such key ${positionals[0]}`);
      return key;
    }
    default:
      throw new UsageError(`unknown command: ${resource} ${action}`);
  }
}

/** Workspace and key administration straight on the database the server uses. */
export async function admin(resource: string, action: string, args: string[]): Promise<unknown> {
  const store = await openStore(loadConfig().databaseUrl);
  try {
    return await run(store, resource, action, args);
  } finally {
    await store.close();
  }
}
