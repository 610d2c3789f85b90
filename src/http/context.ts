import type { Operation } from 'openapi-backend';
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
    /** The operation of the document that method and path matched; undefined for 404 and 405. */
    operation?: Operation;
    operationId?: string;
  }
  interface Request {
    body?: unknown;
  }
}
