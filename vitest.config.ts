import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The tests import `docex/client` from its TypeScript sources, not from the build in dist/ that
  // package.json's exports give users, so they never run a stale build.
  resolve: { alias: { 'docex/client': fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // OCR and server tests are CPU-heavy; two cores run two files at a time at most.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    pool: 'forks',
  },
});
