import Koa from 'koa';
import { OpenAPIBackend } from 'openapi-backend';
import ajvFormats from 'ajv-formats';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import type { ApiDocument } from './openapi.js';
import type { Store } from './store/index.js';
import type { Clock, RateLimiter } from './limits/rate-limiter.js';
import { requestId } from './http/request-id.js';
import { securityHeaders } from './http/security-headers.js';
import { errorMapper } from './http/errors.js';
import { observe } from './http/observe.js';
import { matchRoute, operationMatcher } from './http/route.js';
import { authenticate, requireScopes } from './http/auth.js';
import { rateLimit } from './http/rate-limit.js';
import { jsonBody } from './http/body.js';
import { idempotency } from './http/idempotency.js';
import { dispatch, type OperationHandler } from './http/dispatch.js';
import './http/context.js';
import { meHandlers } from './handlers/me.js';
import { extractionHandlers } from './handlers/extractions.js';
import { templateHandlers } from './handlers/templates.js';
import { webhookHandlers } from './handlers/webhooks.js';
import type { WebhookService } from './services/webhooks.js';
import { docsAssets, operationsHandlers, type ReadinessChecks } from './handlers/operations.js';
import type { ExtractionService } from './services/extractions.js';
import type { TemplateService } from './services/templates.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  document: ApiDocument;
  store: Store;
  limiter: RateLimiter;
  clock: Clock;
  failedAuthLimiter: RateLimiter;
  extractions: ExtractionService;
  templates: TemplateService;
  webhooks: WebhookService;
  readiness: ReadinessChecks;
}

/**
 * The middleware chain: request id -> metrics/log (outside the error mapper, so it records the status
 * the client gets) -> headers -> errors -> route -> auth -> limits ->
 * scopes -> body -> idempotency keys -> dispatch (validation against the document, handler by operationId).
 */
export async function createApp(deps: AppDeps): Promise<Koa> {
  const { config, logger, metrics, document, store } = deps;

  const operationHandlers: Record<string, OperationHandler> = {
    ...meHandlers(),
    ...extractionHandlers(store, deps.extractions),
    ...templateHandlers(deps.templates),
    ...webhookHandlers(deps.webhooks),
    ...operationsHandlers(document, metrics, deps.readiness),
  };

  // openapi-backend matches routes and compiles the document's request schemas; dispatch.ts calls the handlers.
  const api = new OpenAPIBackend({
    definition: document.definition,
    strict: true,
    validate: true,
    coerceTypes: true,
    customizeAjv: (ajv) => ajvFormats.default(ajv, ['date-time', 'email', 'uri']),
  });
  await api.init();
  const match = operationMatcher(api);
  const missing = api.getOperations().filter((op) => !operationHandlers[op.operationId!]);
  if (missing.length) throw new Error(`No handler for operations: ${missing.map((op) => op.operationId).join(', ')}`);

  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(requestId);
  app.use(observe(logger, metrics));
  app.use(securityHeaders(config.corsOrigins));
  app.use(errorMapper(logger));
  app.use(docsAssets);
  app.use(matchRoute(api, match));
  app.use(authenticate(store, deps.failedAuthLimiter, config.authFailuresPerMinute));
  app.use(rateLimit(deps.limiter, logger, { failOpen: config.rateLimitFailOpen, onRejected: (window) => metrics.rateLimitRejections.inc({ window }) }));
  app.use(requireScopes);
  app.use(jsonBody);
  app.use(idempotency(store.idempotency, deps.clock));
  app.use(dispatch(api, match, operationHandlers));
  return app;
}
