import type { Cell } from './lines.js';

/**
 * Printed units of measure to their UN/ECE Recommendation 20 code, the lookup invoice2data
 * applies to its line rows; keys are lower case without spaces.
 */
const CODES: Record<string, string> = {
  ...Object.fromEntries(['l', 'ltr', 'lt', 'ℓ', 'liter', 'litre', 'liters', 'litres'].map((u) => [u, 'LTR'])),
  ...Object.fromEntries(['ml', 'millilitre', 'milliliter'].map((u) => [u, 'MLT'])),
  ...Object.fromEntries(['kg', 'kgm', 'kgs', 'kilogram', 'kilograms'].map((u) => [u, 'KGM'])),
  ...Object.fromEntries(['g', 'gr', 'grm', 'gram', 'grams'].map((u) => [u, 'GRM'])),
  ...Object.fromEntries(['m', 'mtr', 'meter', 'metre', 'meters', 'metres'].map((u) => [u, 'MTR'])),
  cm: 'CMT',
  mm: 'MMT',
  km: 'KMT',
  ...Object.fromEntries(
    ['pcs', 'pc', 'piece', 'pieces', 'ea', 'each', 'ps', 'st', 'stk', 'stuk', 'stuks', 'stück', 'stueck', 'stueckliste', 'unit', 'units', 'stk.', 'x'].map((u) => [u, 'H87']),
  ),
  set: 'SET',
  sets: 'SET',
  ...Object.fromEntries(['h', 'hr', 'hrs', 'hour', 'hours', 'uur', 'uren'].map((u) => [u, 'HUR'])),
  ...Object.fromEntries(['min', 'minute', 'minutes'].map((u) => [u, 'MIN'])),
  ...Object.fromEntries(['d', 'day', 'days', 'dag', 'dagen'].map((u) => [u, 'DAY'])),
  ...Object.fromEntries(['month', 'months', 'maand', 'maanden', 'mnd'].map((u) => [u, 'MON'])),
  ...Object.fromEntries(['year', 'years', 'jaar'].map((u) => [u, 'ANN'])),
};

/** The tables invoice2data fills `unece_code` in, by their docex output names. */
export const UNECE_TABLES = new Set(['line_items', 'tax_lines']);

/**
 * A row's cells with `unece_code` filled from `uom` when the row has a known unit and no code,
 * as invoice2data does; a code the template read is never replaced.
 */
export function withUneceCode(cells: Map<string, Cell>): Map<string, Cell> {
  const uom = cells.get('uom');
  const code = uom && CODES[uom.value.replace(/\s+/g, '').toLowerCase()];
  if (!code || cells.get('unece_code')?.value) return cells;
  return new Map([...cells, ['unece_code', { ...uom, value: code }]]);
}
