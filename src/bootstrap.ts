import type { Store } from './store/index.js';
import { workspacesRepository } from './store/workspaces.js';
import { apiKeysRepository, type Principal } from './store/api-keys.js';
import { principalCache } from './store/principal-cache.js';
import { noSignal } from './store/change-signal.js';

export interface FirstKey {
  workspaceId: string;
  secret: string;
}

/** Any fixed number: the PostgreSQL advisory lock that lets one of several starting servers bootstrap. */
const BOOTSTRAP_LOCK = 0x646f6378;

/**
 * On the first start with an empty database: a default workspace on the free plan and a key with every
 * scope. The secret is returned to be shown once; only its hash is stored, so it is never shown again.
 * Servers starting together on one empty PostgreSQL database take turns under an advisory lock, so
 * exactly one of them creates (and prints) the first key; SQLite serialises writers by itself.
 */
export async function bootstrapFirstKey(store: Store): Promise<FirstKey | null> {
  return store.db.transaction(async (trx) => {
    if (store.dialect === 'postgres') await trx.raw('select pg_advisory_xact_lock(?)', [BOOTSTRAP_LOCK]);
    // Nothing is authenticated inside the transaction, so its repositories need no key cache.
    const uncached = principalCache<Principal>(noSignal);
    const workspaces = workspacesRepository(trx, uncached);
    if ((await workspaces.count()) > 0) return null;
    const workspace = await workspaces.create({ name: 'default', plan: 'free' });
    const { secret } = await apiKeysRepository(trx, uncached).create({
      workspace_id: workspace.id,
      name: 'default',
      scopes: ['extractions:read', 'extractions:write', 'templates:read', 'templates:write', 'webhooks:read', 'webhooks:write'],
    });
    return { workspaceId: workspace.id, secret };
  });
}
