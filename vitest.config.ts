import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // OCR and server tests are CPU-heavy; two cores run two files at a time at most.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    pool: 'forks',
  },
});
