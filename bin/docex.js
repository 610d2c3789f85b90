#!/usr/bin/env node
// The CLI as compiled into dist/ by `npm run build`, which `npm ci` runs.
await import('../dist/scripts/docex.js');
