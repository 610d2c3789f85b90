import type { Db } from './db.js';
import { newId } from '../ids.js';
import { generateKey, hashKey, hashesEqual, keyPrefix } from '../auth/keys.js';
import type { Workspace } from './workspaces.js';
import type { PrincipalCache } from './principal-cache.js';
import { announcingChange } from './change-signal.js';
import type { components } from '../../generated/openapi.js';

export type Scope = components['schemas']['Scope'];

export interface ApiKeyRecord {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
}

interface Row extends Omit<ApiKeyRecord, 'scopes'> {
  hash: string;
  scopes: string;
}

const fromRow = ({ hash: _hash, scopes, ...rest }: Row): ApiKeyRecord => ({ ...rest, scopes: JSON.parse(scopes) as Scope[] });

export interface Principal {
  key: ApiKeyRecord;
  workspace: Workspace;
}

/** `principals` remembers authenticated keys while the database's change signal says nothing changed. */
export function apiKeysRepository(db: Db, principals: PrincipalCache<Principal>) {
  const table = () => db<Row>('api_keys');
  return {
    /** Creates a key and returns its secret, which is not stored and cannot be shown again. */
    async create(input: { workspace_id: string; name: string; scopes: Scope[] }): Promise<{ key: ApiKeyRecord; secret: string }> {
      const secret = generateKey();
      const row: Row = {
        id: newId('key'),
        workspace_id: input.workspace_id,
        name: input.name,
        prefix: keyPrefix(secret),
        hash: hashKey(secret),
        scopes: JSON.stringify(input.scopes),
        created_at: new Date().toISOString(),
        revoked_at: null,
      };
      await table().insert(row);
      return { key: fromRow(row), secret };
    },
    /**
     * The active key whose secret this is and its workspace, if any (revoked keys and keys of deleted
     * workspaces are not returned). It runs on every authenticated request: no query while the key is
     * remembered, one otherwise.
     */
    async findBySecret(secret: string): Promise<Principal | undefined> {
      const hash = hashKey(secret);
      const cached = principals.get(hash);
      if (cached) return cached;
      const token = principals.token();
      const row = await table()
        .join('workspaces', 'workspaces.id', 'api_keys.workspace_id')
        .where('api_keys.hash', hash)
        .whereNull('api_keys.revoked_at')
        .whereNull('workspaces.deleted_at')
        .first<(Row & { [K in Exclude<keyof Workspace, 'id'> as `ws_${K}`]: Workspace[K] }) | undefined>(
          'api_keys.*',
          'workspaces.name as ws_name',
          'workspaces.plan as ws_plan',
          'workspaces.per_minute as ws_per_minute',
          'workspaces.per_day as ws_per_day',
          'workspaces.created_at as ws_created_at',
          'workspaces.deleted_at as ws_deleted_at',
        );
      if (!row || !hashesEqual(row.hash, hash)) return undefined;
      const { ws_name, ws_plan, ws_per_minute, ws_per_day, ws_created_at, ws_deleted_at, ...key } = row;
      const principal: Principal = {
        key: fromRow(key),
        workspace: { id: key.workspace_id, name: ws_name, plan: ws_plan, per_minute: ws_per_minute, per_day: ws_per_day, created_at: ws_created_at, deleted_at: ws_deleted_at },
      };
      principals.set(hash, principal, token);
      return principal;
    },
    async get(id: string): Promise<ApiKeyRecord | undefined> {
      const row = await table().where({ id }).first();
      return row && fromRow(row);
    },
    async listByWorkspace(workspace_id: string): Promise<ApiKeyRecord[]> {
      return (await table().where({ workspace_id }).orderBy('id')).map(fromRow);
    },
    async revoke(id: string): Promise<ApiKeyRecord | undefined> {
      await announcingChange(db, (trx) => trx('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: new Date().toISOString() }));
      principals.clear();
      return this.get(id);
    },
  };
}
