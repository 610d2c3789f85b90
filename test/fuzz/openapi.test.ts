import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApiDocument } from '../../src/openapi.js';
import { databases } from '../store/databases.js';
import { startApiServer, type ApiServer } from '../support/api-server.js';
import { assertMatchesContract, type ApiResponse } from '../support/contract.js';
import { EU_INVOICE, invoicePdf } from '../fixtures/documents.js';
import { schemaArbitraries, type Schema } from './schema-arbitrary.js';

interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown; examples?: Record<string, { $ref?: string; value?: unknown }> }> };
  responses: Record<string, unknown>;
}

interface Request {
  path: string;
  auth: 'key' | 'none' | 'garbage' | 'unscoped';
  body?: string;
  contentType?: string;
}

const doc = loadApiDocument().definition as unknown as {
  paths: Record<string, Record<string, Operation | Parameter[]>>;
  security: Record<string, string[]>[];
  components: { schemas: Record<string, Schema>; parameters: Record<string, Parameter>; examples: Record<string, { value: unknown }> };
};
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Answers any route may give before an operation is chosen: unknown path, wrong method, body framing. */
const GLOBAL_STATUSES = new Set([404, 405, 413, 415]);
const RUNS_PER_OPERATION = 40;

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => {
    const op = item[method] as Operation;
    const params = [...((item.parameters as Parameter[]) ?? []), ...(op.parameters ?? [])].map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!] : p));
    return { path, method: method.toUpperCase(), op, params, scopes: (op.security ?? doc.security)[0]?.bearerAuth ?? null };
  }),
);

const { valid, hostile } = schemaArbitraries(doc);
const refName = (s: Schema) => s.$ref?.split('/').pop() ?? '';

/** Checks one response: never 5xx, documented (or a global refusal in the envelope), safe headers. */
async function checkResponse(operationId: string, path: string, res: ApiResponse): Promise<void> {
  expect(res.status, `${operationId} ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
  const documented = String(res.status) in operations.find((o) => o.op.operationId === operationId)!.op.responses;
  await assertMatchesContract(documented || !GLOBAL_STATUSES.has(res.status) ? operationId : null, res);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-powered-by')).toBeNull();
  if (path.startsWith('/v1/')) expect(res.headers.get('cache-control')).toBe('no-store');
}

/** Requests generated from the document for every operation, checked against the same document. */
describe('fuzzing every operation from the OpenAPI document', () => {
  let api: ApiServer;
  const keys: Record<Request['auth'], string | null> = { key: null, none: null, garbage: 'dx_live_not-a-real-key', unscoped: null };
  /** Real ids by schema name, so that generated requests reach existing objects too. */
  const realIds: Record<string, string[]> = { ExtractionId: [], TemplateId: ['tpl_builtin_com_amazon_aws'] };
  let sent = 0;

  beforeAll(async () => {
    api = await startApiServer(databases[0], { env: { AUTH_FAILURES_PER_MINUTE: '1000000', LOG_LEVEL: 'warn' } });
    keys.key = (await api.newKey({ plan: 'enterprise', per_minute: 1_000_000, per_day: 10_000_000 })).secret;
    keys.unscoped = (await api.newKey({ plan: 'enterprise', per_minute: 1_000_000, per_day: 10_000_000, scopes: [] })).secret;
    const pdf = (await invoicePdf(EU_INVOICE)).toString('base64');
    const ext = await api.call('createExtraction', 'POST', '/v1/extractions', { key: keys.key, body: { file: pdf, file_name: 'seed.pdf' } });
    realIds.ExtractionId.push((ext.body as { id: string }).id);
    for (let i = 0; i < 5; i++) {
      const tpl = await api.call('createTemplate', 'POST', '/v1/templates', { key: keys.key, body: { name: `seed ${i}`, keywords: ['ACME'], fields: { po: { parser: 'static', value: '1' } } } });
      realIds.TemplateId.push((tpl.body as { id: string }).id);
    }
  });
  afterAll(async () => {
    await api?.close();
    // Bounded on purpose: the figure goes into the closing note.
    console.info(`fuzz: ${sent} generated requests, none answered 5xx`);
  });

  async function send(method: string, req: Request): Promise<ApiResponse> {
    sent++;
    const headers: Record<string, string> = {};
    if (req.auth !== 'none') headers.Authorization = `Bearer ${keys[req.auth]}`;
    if (req.contentType !== undefined) headers['Content-Type'] = req.contentType;
    const res = await fetch(`${api.url}${req.path}`, { method, headers, body: req.body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text };
  }

  function requestFor(o: (typeof operations)[number]): fc.Arbitrary<Request> {
    const pathParams = o.params.filter((p) => p.in === 'path');
    const query = o.params.filter((p) => p.in === 'query');
    const idArb = (p: Parameter) =>
      fc.oneof(
        { arbitrary: valid(p.schema).map(String), weight: 2 },
        { arbitrary: fc.constantFrom(...(realIds[refName(p.schema)] ?? ['x'])), weight: 3 },
        { arbitrary: fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), fc.string({ minLength: 300, maxLength: 600 })), weight: 2 },
      );
    const queryArb = (p: Parameter) => fc.option(fc.oneof(valid(p.schema).map(String), fc.string(), fc.constantFrom(...Object.values(realIds).flat())), { nil: undefined });
    const media = o.op.requestBody?.content['application/json'];
    const examples = media ? [media.example, ...Object.values(media.examples ?? {}).map((e) => (e.$ref ? doc.components.examples[e.$ref.split('/').pop()!].value : e.value))].filter((e) => e !== undefined) : [];
    const bodyArb: fc.Arbitrary<string | undefined> = media
      ? fc.oneof(
          { arbitrary: hostile(media.schema).map((b) => JSON.stringify(b)), weight: 6 },
          ...(examples.length ? [{ arbitrary: fc.constantFrom(...examples).map((b) => JSON.stringify(b)), weight: 2 }] : []),
          { arbitrary: fc.string().map((s) => `{${s}`), weight: 1 },
        )
      : fc.constant(undefined);
    const typeArb = media
      ? fc.oneof({ arbitrary: fc.constant('application/json'), weight: 8 }, fc.constantFrom('application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'))
      : fc.constant(undefined);
    const authArb = o.scopes ? fc.oneof({ arbitrary: fc.constant('key' as const), weight: 8 }, fc.constantFrom('none' as const, 'garbage' as const, 'unscoped' as const)) : fc.constant('none' as const);
    return fc
      .record({
        ids: fc.tuple(...pathParams.map(idArb)),
        query: fc.tuple(...query.map(queryArb)),
        body: bodyArb,
        contentType: typeArb,
        auth: authArb,
      })
      .map(({ ids, query: values, body, contentType, auth }) => {
        let path = o.path;
        pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, encodeURIComponent(ids[i]))));
        const search = new URLSearchParams();
        query.forEach((p, i) => values[i] !== undefined && search.set(p.name, values[i]!));
        const qs = search.toString();
        return { path: qs ? `${path}?${qs}` : path, auth, body, contentType: body === undefined ? undefined : contentType };
      });
  }

  for (const o of operations) {
    it(`${o.op.operationId}: documented status and body, never 5xx`, async () => {
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(requestFor(o), async (req) => {
          const res = await send(o.method, req);
          statuses.add(res.status);
          await checkResponse(o.op.operationId, req.path, res);
        }),
        { numRuns: RUNS_PER_OPERATION },
      );
      // The generators must reach beyond the first check, not only bounce off authentication.
      if (o.scopes) expect([...statuses].some((s) => s !== 401 && s !== 403)).toBe(true);
    });
  }

  it('answers every method on every path with the operation or a 404/405 envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(doc.paths)), fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), async (template, method) => {
        const path = template.replace(/\{id\}/, template.includes('extractions') ? realIds.ExtractionId[0] : realIds.TemplateId[1]);
        const operation = operations.find((o) => o.path === template && o.method === method);
        const res = await send(method, { path, auth: 'key', ...(method === 'POST' || method === 'PATCH' ? { body: '{}', contentType: 'application/json' } : {}) });
        if (operation) return checkResponse(operation.op.operationId, path, res);
        expect([404, 405]).toContain(res.status);
        if (res.status === 405) expect(res.headers.get('allow')).toMatch(/GET|POST|PATCH|DELETE/);
        await assertMatchesContract(null, res);
      }),
      { numRuns: 60 },
    );
  });

  it('answers unknown routes with the 404 envelope', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('v1', 'v2', '..', 'extractions', 'templates')), { minLength: 1, maxLength: 5 }), async (segments) => {
        // fetch resolves dot segments as any client would, so match against the path it sends;
        // a trailing slash names the same resource (documented in the API description).
        const path = new URL(`/${segments.map(encodeURIComponent).join('/')}`, api.url).pathname;
        if (operations.some((o) => new RegExp(`^${o.path.replace(/\{id\}/, '[^/]+')}/?$`).test(path))) return;
        const res = await send('GET', { path, auth: 'key' });
        expect(res.status, path).toBe(404);
        await assertMatchesContract(null, res);
      }),
      { numRuns: 60 },
    );
  });
});
