#!/usr/bin/env node
// The CLI is TypeScript run from source; tsx compiles it on the fly, as for the server.
import { register } from 'tsx/esm/api';

register();
await import('../scripts/docex.ts');
