import type { Store } from './store/index.js';

export interface FirstKey {
  workspaceId: string;
  secret: string;
}

/**
 * On the first start with an empty database: a default workspace on the free plan and a key with every
 * scope. The secret is returned to be shown once; only its hash is stored, so it is never shown again.
 */
export async function bootstrapFirstKey(store: Store): Promise<FirstKey | null> {
  if ((await store.workspaces.count()) > 0) return null;
  const workspace = await store.workspaces.create({ name: 'default', plan: 'free' });
  const { secret } = await store.apiKeys.create({
    workspace_id: workspace.id,
    name: 'default',
    scopes: ['extractions:read', 'extractions:write', 'templates:read', 'templates:write'],
  });
  return { workspaceId: workspace.id, secret };
}
