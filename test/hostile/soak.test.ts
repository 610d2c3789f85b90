import { expect, it } from 'vitest';
import { runSoak } from '../../scripts/soak.js';

// The short CI variant of `npm run soak` (2 minutes by default).
it('survives 45 seconds of mixed traffic: no 5xx, nothing lost, bounded memory', async () => {
  const report = await runSoak(45);
  expect(report.problems).toEqual([]);
  expect(report.statuses['201']).toBeGreaterThan(0);
  expect(report.statuses['422']).toBeGreaterThan(0);
  expect(report.statuses['429']).toBeGreaterThan(0);
}, 180_000);
