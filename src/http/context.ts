import type { ApiKeyRecord } from '../store/api-keys.js';
import type { Workspace } from '../store/workspaces.js';
import type { Limits } from '../limits/plans.js';

/** Who is calling: set by the auth middleware for every authenticated request. */
export interface Principal {
  key: ApiKeyRecord;
  workspace: Workspace;
  limits: Limits;
}

declare module 'koa' {
  interface DefaultState {
    requestId: string;
    principal?: Principal;
    /** Scopes the matched operation needs; undefined for unauthenticated operations. */
    requiredScopes?: string[];
    operationId?: string;
  }
  interface Request {
    body?: unknown;
  }
}
