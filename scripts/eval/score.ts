import { docexFieldName } from '../../src/templates/field-names.js';

/** A document's fields by docex name, values as strings. */
export type Flat = Map<string, string>;

/**
 * Expected invoice2data output as docex fields: names mapped, line tables as
 * `<name>.N.<column>`. `issuer` stands for the vendor only when `partner_name` is absent; `desc`
 * is invoice2data's own summary; lists of plain values have no docex form and are counted apart.
 */
export function flattenExpected(expected: Record<string, unknown>): { fields: Flat; skipped: number } {
  const fields: Flat = new Map();
  let skipped = 0;
  for (const [key, value] of Object.entries(expected)) {
    if (key === 'desc' || (key === 'issuer' && 'partner_name' in expected)) continue;
    const name = docexFieldName(key);
    if (Array.isArray(value)) {
      if (!value.every((v) => typeof v === 'object' && v !== null)) {
        skipped += 1;
        continue;
      }
      value.forEach((row: Record<string, unknown>, n) => {
        for (const [column, cell] of Object.entries(row)) fields.set(`${name}.${n}.${column}`, String(cell));
      });
    } else {
      fields.set(name, String(value));
    }
  }
  return { fields, skipped };
}

/** Equal for the evaluation: numbers to two decimals, text without case or spacing differences. */
export function normalised(value: string): string {
  const v = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v).toFixed(2);
  return v.toLowerCase().replace(/\s+/g, ' ');
}

/** Field groups scored separately: line tables are one group a table. */
export const groupOf = (name: string) => name.replace(/\.\d+\./, '.*.');

export interface Tally {
  tp: number;
  fp: number;
  fn: number;
}

export function score(expected: Flat, got: Flat, tallies: Map<string, Tally>): { equal: number; total: number } {
  let equal = 0;
  for (const [name, want] of expected) {
    const t = tallies.get(groupOf(name)) ?? { tp: 0, fp: 0, fn: 0 };
    tallies.set(groupOf(name), t);
    const have = got.get(name);
    if (have !== undefined && normalised(have) === normalised(want)) {
      t.tp += 1;
      equal += 1;
    } else {
      t.fn += 1;
      if (have !== undefined) t.fp += 1;
    }
  }
  return { equal, total: expected.size };
}

export function f1(t: Tally): { p: number; r: number; f: number } {
  const p = t.tp + t.fp ? t.tp / (t.tp + t.fp) : 0;
  const r = t.tp + t.fn ? t.tp / (t.tp + t.fn) : 0;
  return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
}
