/**
 * The nearest-rank percentile of the values (any order): the smallest value that at least p% of
 * them do not exceed. One definition for every bench and test that prints or checks a p50 or p99.
 */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}
