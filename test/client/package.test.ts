import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sh } from '../support/sh.js';
import { startTestServer, type TestServer } from './helpers.js';

const root = path.resolve(import.meta.dirname, '../..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

/**
 * The client as a user gets it: built, packed, installed from the tarball into a project of its
 * own and imported from there, never from this repository's sources.
 */
describe('the docex client package', () => {
  let dir: string;
  let app: string;
  let tarball: string;
  let t: TestServer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docex-package-'));
    app = path.join(dir, 'app');
    const packs = path.join(dir, 'packs');
    fs.mkdirSync(app);
    fs.mkdirSync(packs);
    await sh('npm', ['run', 'build'], root);
    tarball = path.join(packs, (await sh('npm', ['pack', './dist', '--pack-destination', packs, '--silent'], root)).trim());
    // npm 11 resolves a version range from the registry's full metadata, which the local cache
    // does not hold for every package, so `--offline` cannot resolve openapi-fetch by range; its
    // tarball (and its one dependency's) is packed from this clone's node_modules instead.
    await sh('npm', ['pack', './node_modules/openapi-fetch', './node_modules/openapi-typescript-helpers', '--ignore-scripts', '--pack-destination', packs, '--silent'], root);
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    const tarballs = fs.readdirSync(packs).map((f) => path.join(packs, f));
    await sh('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], app);
    t = await startTestServer();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds the built JavaScript and declarations, and depends only on openapi-fetch', async () => {
    const files = (await sh('tar', ['tzf', tarball], dir)).trim().split('\n');
    expect(files).toContain('package/src/client/index.js');
    expect(files).toContain('package/src/client/index.d.ts');
    expect(files).toContain('package/generated/openapi.d.ts');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const installed = JSON.parse(fs.readFileSync(path.join(app, 'node_modules/docex/package.json'), 'utf8'));
    expect(Object.keys(installed.dependencies)).toEqual(['openapi-fetch']);
    expect(fs.readdirSync(path.join(app, 'node_modules')).filter((f) => !f.startsWith('.')).sort()).toEqual(['docex', 'openapi-fetch', 'openapi-typescript-helpers']);
  });

  it('is imported from a plain .mjs file run by node', async () => {
    const secret = 'whsec_test';
    const body = JSON.stringify({ id: 'evt_1', type: 'extraction.completed', created_at: '2026-11-24T00:00:00Z', data: {} });
    const stamp = Math.floor(Date.now() / 1000);
    const signature = `t=${stamp},v1=${crypto.createHmac('sha256', secret).update(`${stamp}.${body}`).digest('hex')}`;
    fs.writeFileSync(
      path.join(app, 'main.mjs'),
      `import { createClient, DocexError, verifyWebhookSignature, WebhookSignatureError } from 'docex/client';
const client = createClient({ baseUrl: process.env.DOCEX_URL, apiKey: process.env.DOCEX_API_KEY });
const me = await client.me();
let refused = null;
try {
  await createClient({ baseUrl: process.env.DOCEX_URL, apiKey: 'dx_live_wrong' }).me();
} catch (err) {
  refused = err instanceof DocexError ? err.code : String(err);
}
const event = verifyWebhookSignature(process.env.BODY, process.env.SIGNATURE, ${JSON.stringify(secret)});
let forged = null;
try {
  verifyWebhookSignature(process.env.BODY, process.env.SIGNATURE, 'whsec_other');
} catch (err) {
  forged = err instanceof WebhookSignatureError;
}
console.log(JSON.stringify({ scopes: me.api_key.scopes, refused, event: event.id, forged }));
`,
    );
    const out = await sh(process.execPath, ['main.mjs'], app, { ...process.env, DOCEX_URL: t.url, DOCEX_API_KEY: t.key, BODY: body, SIGNATURE: signature });
    const result = JSON.parse(out);
    expect(result.scopes).toContain('extractions:write');
    expect(result.refused).toBe('unauthorized');
    expect(result.event).toBe('evt_1');
    expect(result.forged).toBe(true);
  });

  it('type-checks a .ts file that imports it, with the API types', async () => {
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, typeRoots: [path.join(root, 'node_modules/@types')], types: ['node'] },
        files: ['main.ts'],
      }),
    );
    const source = (requestId: string) => `import { createClient, DocexError, type Extraction } from 'docex/client';
const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'dx_live_...' });
const extraction: Extraction = await client.extractFile('invoice.pdf');
const confidence: number | null = extraction.confidence;
const requestId: ${requestId} = (await client.me()).request_id;
export { confidence, requestId, DocexError };
`;
    fs.writeFileSync(path.join(app, 'main.ts'), source('string'));
    await sh(process.execPath, [tsc, '-p', 'tsconfig.json'], app);
    // The declarations carry the API's types: a wrong one is an error, not `any`. (The declarations
    // themselves were checked by the run above.)
    fs.writeFileSync(path.join(app, 'main.ts'), source('number'));
    await expect(sh(process.execPath, [tsc, '-p', 'tsconfig.json', '--skipLibCheck'], app)).rejects.toThrow(/TS2322: Type 'string' is not assignable to type 'number'/);
  });
});
