import type { Middleware } from 'koa';
import type { OpenAPIBackend, Operation } from 'openapi-backend';

/** Distinct method and path pairs remembered; past this the memo starts afresh. */
const MEMO_SIZE = 1000;
/** A path segment that is a resource id (`ext_<ULID>`, `tpl_<ULID>`): never a literal segment of the document's paths. */
const ID_SEGMENT = /\/[a-z]{2,4}_[0-9A-HJKMNP-TV-Z]{26}(?=\/|$)/g;

export type OperationMatcher = (method: string, path: string) => Operation | undefined;

/**
 * The document's operation for a method and path, through openapi-backend's public `matchOperation`,
 * which rebuilds the list of operations on every call (0.2-0.4 ms here). The operation depends only
 * on method and path and the document does not change after start, so a bounded memo in front of the
 * call serves repeated requests, one entry for all the ids of a path; misses (404, 405) are not kept.
 */
export function operationMatcher(api: OpenAPIBackend): OperationMatcher {
  const matched = new Map<string, Operation>();
  return (method, path) => {
    const key = `${method} ${path.replace(ID_SEGMENT, '/{id}')}`;
    const hit = matched.get(key);
    if (hit) return hit;
    const operation = api.matchOperation({ method, path, headers: {}, query: {} });
    if (operation) {
      if (matched.size >= MEMO_SIZE) matched.clear();
      matched.set(key, operation);
    }
    return operation;
  };
}

/**
 * Finds the operation before authentication, so that the auth middleware knows whether the
 * operation is public and which scopes it needs (from the document's `security` requirement).
 */
export function matchRoute(api: OpenAPIBackend, match: OperationMatcher): Middleware {
  return async (ctx, next) => {
    const operation = match(ctx.method, ctx.path);
    if (operation) {
      ctx.state.operation = operation;
      ctx.state.operationId = operation.operationId;
      const security = operation.security ?? api.definition.security ?? [];
      const bearer = security.find((req) => 'bearerAuth' in req);
      if (bearer) ctx.state.requiredScopes = bearer.bearerAuth;
    }
    await next();
  };
}
