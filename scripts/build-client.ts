import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Builds the typed client into dist/ as a package of its own: JavaScript and declarations from
 * tsc, the generated API types they refer to, and a package.json whose only dependency is
 * openapi-fetch, so that installing the client does not install the server (OCR models, pdf.js,
 * native modules). `npm pack ./dist` makes the tarball people install; this repository's own
 * `docex/client` export points at the same files.
 */
const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
};

fs.rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
// The declarations import '../../generated/openapi.js'; tsc does not copy .d.ts inputs.
fs.mkdirSync(path.join(dist, 'generated'));
fs.copyFileSync(path.join(root, 'generated/openapi.d.ts'), path.join(dist, 'generated/openapi.d.ts'));
const client = {
  name: 'docex',
  version: pkg.version,
  description: 'Typed client for the docex document extraction API.',
  license: pkg.license,
  type: 'module',
  engines: pkg.engines,
  exports: { './client': { types: './src/client/index.d.ts', default: './src/client/index.js' } },
  dependencies: { 'openapi-fetch': pkg.dependencies['openapi-fetch'] },
};
fs.writeFileSync(path.join(dist, 'package.json'), `${JSON.stringify(client, null, 2)}\n`);
process.stdout.write(`client built in ${path.relative(root, dist)}/ (npm pack ./dist makes its tarball)\n`);
