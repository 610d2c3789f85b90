import type { Reader } from './read.js';
import type { Judged } from './score.js';

/** What every corpus module gets: where the corpora are and how to read a document. */
export interface Context {
  /** `../shared/eval`, relative to the repository. */
  root: string;
  reader: Reader;
  /** Skip the paths that need OCR. */
  textOnly: boolean;
}

/** A figure for the closing summary, with the target where it sets one. */
export interface Goal {
  run: string;
  measure: string;
  value: string;
  target?: string;
  met?: boolean;
}

export interface Outcome {
  judged: Judged[];
  goals: Goal[];
}

export interface Corpus {
  name: string;
  /** The folder under `root` the corpus needs; none for corpora made here. */
  folder?: string;
  run(ctx: Context): Promise<Outcome>;
}

const share = (n: number) => `${(100 * n).toFixed(0)}%`;

/** Fields right of those expected, against a share to reach (none: shown without a target). */
export function fieldsGoal(run: string, tally: { right: number; total: number }, target?: number): Goal {
  const value = `${tally.right}/${tally.total} (${tally.total ? share(tally.right / tally.total) : '-'})`;
  if (target === undefined) return { run, measure: 'fields right', value };
  return { run, measure: 'fields right', value, target: `>= ${share(target)}`, met: tally.total > 0 && tally.right / tally.total >= target };
}

/** An F1 (fields, line-item rows) against its target. */
export function f1Goal(run: string, measure: string, f: number, target: number): Goal {
  return { run, measure, value: f.toFixed(2), target: `>= ${target.toFixed(2)}`, met: f >= target - 1e-9 };
}
