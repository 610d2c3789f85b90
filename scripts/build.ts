import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Builds docex into dist/: tsc compiles the server, its worker entries and the `docex` CLI to
 * JavaScript with declarations (`npm start` and bin/docex.js run them), and the files the modules
 * read beside themselves at run time are copied into the same places, so that dist/ is laid out
 * as the repository is. dist/ is also the client's package: its package.json names only the
 * client's files and openapi-fetch, so that installing the client does not install the server (OCR
 * models, pdf.js, native modules). `npm pack ./dist` makes the tarball people install; this
 * repository's own `docex/client` export points at the same files.
 */
const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
};

const started = Date.now();
fs.rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
// Everything under src/ that tsc does not compile is data a module finds beside itself (lexicons,
// built-in templates, the .mjs pdf.js and worker loaders with their declarations); copying all of
// it rather than a list means a data file added later is not forgotten. src/openapi.ts reads
// ../openapi/openapi.yaml, and the client's declarations import ../../generated/openapi.js, a
// .d.ts input tsc does not copy.
fs.cpSync(path.join(root, 'src'), path.join(dist, 'src'), { recursive: true, filter: (file) => !file.endsWith('.ts') });
fs.cpSync(path.join(root, 'openapi/openapi.yaml'), path.join(dist, 'openapi/openapi.yaml'));
fs.cpSync(path.join(root, 'generated/openapi.d.ts'), path.join(dist, 'generated/openapi.d.ts'));
const client = {
  name: 'docex',
  version: pkg.version,
  description: 'Typed client for the docex document extraction API.',
  license: pkg.license,
  type: 'module',
  engines: pkg.engines,
  exports: { './client': { types: './src/client/index.d.ts', default: './src/client/index.js' } },
  files: ['src/client/', 'generated/'],
  dependencies: { 'openapi-fetch': pkg.dependencies['openapi-fetch'] },
};
fs.writeFileSync(path.join(dist, 'package.json'), `${JSON.stringify(client, null, 2)}\n`);
process.stdout.write(`built in ${path.relative(root, dist)}/ in ${((Date.now() - started) / 1000).toFixed(1)} s: npm start runs it, npm pack ./dist makes the client's tarball\n`);
