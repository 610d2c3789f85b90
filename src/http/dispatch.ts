import type { Middleware } from 'koa';
import type { OpenAPIBackend, Operation, ParsedRequest } from 'openapi-backend';
import type { ErrorObject } from 'ajv';
import { ApiError, notFound } from '../errors.js';
import { validationError } from './validation.js';
import type { OperationMatcher } from './route.js';

/** What a handler gets besides Koa's context: the request's members, validated against the document. */
export type OperationInput = Pick<ParsedRequest, 'params' | 'query' | 'requestBody'>;
export type OperationHandler = (input: OperationInput, ctx: Parameters<Middleware>[0]) => Promise<void>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function routeError(match: OperationMatcher, method: string, path: string): ApiError {
  const allowed = METHODS.filter((m) => match(m, path)).map((m) => m.toUpperCase());
  if (!allowed.length) return notFound('No such route. See /docs for the API reference.');
  return new ApiError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`, { Allow: allowed.join(', ') });
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Left as sent: the parameter's schema then refuses it with a 400.
    return segment;
  }
}

/** The path parameters of a path the operation matched (trailing slashes allowed, as the router allows them). */
function pathParams(operation: Operation): (path: string) => Record<string, string> {
  const names: string[] = [];
  const pattern = operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const regex = new RegExp(`^${pattern}/*$`);
  return (path) => {
    const values = regex.exec(path);
    return Object.fromEntries(names.map((name, i) => [name, decode(values?.[i + 1] ?? '')]));
  };
}

/**
 * Validates the request with the schemas openapi-backend compiled from the document for the operation
 * that `matchRoute` found, then calls the handler registered under its operationId. The members are
 * gathered once here: openapi-backend's `handleRequest` parses each request three times and matches it
 * again (21 µs for GET /v1/me, 48 µs for GET /v1/extractions/{id}, against 0.3 and 1.2 µs for this), for
 * security handlers that the auth middleware has already replaced.
 */
export function dispatch(api: OpenAPIBackend, match: OperationMatcher, handlers: Record<string, OperationHandler>): Middleware {
  const params = new Map(api.getOperations().map((op) => [op.operationId!, pathParams(op)]));
  return async (ctx) => {
    const operation = ctx.state.operation;
    if (!operation) throw routeError(match, ctx.method, ctx.path);
    const operationId = operation.operationId!;
    const query = { ...ctx.query };
    const members: Record<string, unknown> = { path: params.get(operationId)!(ctx.path), query, header: ctx.headers, cookie: {} };
    if (ctx.request.body !== undefined) members.requestBody = ctx.request.body;
    const errors: ErrorObject[] = [];
    // With coerceTypes the validators also turn path and query members into the types the document gives.
    for (const validate of api.validator.getRequestValidatorsForOperation(operationId)) {
      if (!validate(members)) errors.push(...(validate.errors ?? []));
    }
    if (errors.length) throw validationError(errors);
    await handlers[operationId]!({ params: members.path as ParsedRequest['params'], query: query as ParsedRequest['query'], requestBody: ctx.request.body }, ctx);
  };
}
