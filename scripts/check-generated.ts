import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Fails when generated/openapi.d.ts is not what `npm run generate` makes from the document. */
const committed = 'generated/openapi.d.ts';
const fresh = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docex-gen-')), 'openapi.d.ts');
execFileSync('npx', ['openapi-typescript', 'openapi/openapi.yaml', '-o', fresh, '--default-non-nullable', 'false'], { stdio: 'ignore' });
if (fs.readFileSync(fresh, 'utf8') !== fs.readFileSync(committed, 'utf8')) {
  process.stderr.write(`${committed} differs from what openapi/openapi.yaml generates; run \`npm run generate\` and commit the result.\n`);
  process.exit(1);
}
process.stdout.write(`${committed} is up to date\n`);
