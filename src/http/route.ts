import type { Middleware } from 'koa';
import type { OpenAPIBackend } from 'openapi-backend';

/**
 * Finds the operation before authentication, so that the auth middleware knows whether the
 * operation is public and which scopes it needs (from the document's `security` requirement).
 */
export function matchRoute(api: OpenAPIBackend): Middleware {
  return async (ctx, next) => {
    const operation = api.matchOperation({ method: ctx.method, path: ctx.path, headers: {}, query: {} });
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
