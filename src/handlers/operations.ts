import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Context as Ctx, Middleware } from 'koa';
import type { components } from '../../generated/openapi.js';
import type { ApiDocument } from '../openapi.js';
import type { Metrics } from '../metrics.js';

type Readiness = components['schemas']['Readiness'];
type CheckState = components['schemas']['CheckState'];

export interface ReadinessChecks {
  database(): Promise<void>;
  rateLimitStore: (() => Promise<void>) | null;
  /** Null on an API-only instance (`ROLE=api`), which has no OCR workers of its own. */
  ocrReady: (() => boolean) | null;
}

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const DOCS_ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>docex API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// Inline scripts would need a looser Content-Security-Policy, so the initialiser is served as a file.
// "Try it out" sends requests to the document's first server; the page's own origin is put first so
// they reach the server that served the page, whatever its host and port.
const DOCS_INIT = `fetch('/openapi.json')
  .then(function (response) { return response.json(); })
  .then(function (spec) {
    var here = window.location.origin;
    var others = (spec.servers || []).filter(function (server) { return server.url !== here; });
    spec.servers = [{ url: here, description: 'This server' }].concat(others);
    window.ui = SwaggerUIBundle({
      spec: spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      displayOperationId: true,
      persistAuthorization: true,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout'
    });
  });
`;

/** Swagger UI's files, from node_modules: nothing is fetched from a CDN. Not part of the API contract. */
export const docsAssets: Middleware = async (ctx, next) => {
  const match = /^\/docs\/([\w.-]+)$/.exec(ctx.path);
  if (ctx.method !== 'GET' || !match) return next();
  const name = match[1];
  if (name === 'init.js') {
    ctx.type = 'application/javascript';
    ctx.body = DOCS_INIT;
    return;
  }
  if (!DOCS_ASSETS.has(name)) return next();
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.type = path.extname(name);
  ctx.body = fs.createReadStream(path.join(swaggerUiDir, name));
};

async function check(probe: (() => Promise<void>) | null): Promise<CheckState> {
  if (!probe) return 'not_configured';
  try {
    await probe();
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

export function operationsHandlers(doc: ApiDocument, metrics: Metrics, checks: ReadinessChecks) {
  return {
    async getHealth(_c: unknown, ctx: Ctx) {
      ctx.body = { status: 'ok' };
    },
    async getReadiness(_c: unknown, ctx: Ctx) {
      const [database, rate_limit_store] = await Promise.all([check(checks.database), check(checks.rateLimitStore)]);
      const ocr: CheckState = !checks.ocrReady ? 'not_configured' : checks.ocrReady() ? 'ok' : 'unavailable';
      const ready = database !== 'unavailable' && rate_limit_store !== 'unavailable' && ocr !== 'unavailable';
      const body: Readiness = { status: ready ? 'ok' : 'unavailable', checks: { database, rate_limit_store, ocr } };
      ctx.status = ready ? 200 : 503;
      ctx.body = body;
    },
    async getMetrics(_c: unknown, ctx: Ctx) {
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    },
    async getOpenApiYaml(_c: unknown, ctx: Ctx) {
      ctx.type = 'application/yaml';
      ctx.body = doc.yaml;
    },
    async getOpenApiJson(_c: unknown, ctx: Ctx) {
      ctx.type = 'application/json';
      ctx.body = doc.json;
    },
    async getDocs(_c: unknown, ctx: Ctx) {
      ctx.type = 'text/html';
      ctx.body = DOCS_PAGE;
    },
  };
}
