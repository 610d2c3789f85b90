import type { components } from '../../generated/openapi.js';
import type { Cell } from './lines.js';
import { cachedPattern } from './regex.js';
import { patternsOf } from './validate.js';

type TemplateField = components['schemas']['TemplateField'];
type RegexList = components['schemas']['RegexList'];

/** The first match of any of the patterns, the earliest pattern first, as `re.search` on each in turn would find. */
function first(list: RegexList, text: string): RegExpExecArray | null {
  for (const source of patternsOf(list)) {
    const m = cachedPattern(source).regex.exec(text);
    if (m) return m;
  }
  return null;
}

/**
 * invoice2data's `tables` plugin for one column: the body runs from the end of the first `start`
 * match to the beginning of the first `end` match, both searched in the whole text (so an `end`
 * before `start` leaves no body); each non-blank line of it is searched with `body`, and the
 * named group `column` of every line that matches is a value, in order.
 */
export function tableColumn(field: TemplateField, text: string): Cell[] {
  const start = first(field.start!, text);
  const end = first(field.end!, text);
  if (!start || !end) return [];
  const from = start.index + start[0].length;
  const cells: Cell[] = [];
  let offset = from;
  for (const line of text.slice(from, Math.max(from, end.index)).split('\n')) {
    const lineOffset = offset;
    offset += line.length + 1;
    if (!line.trim()) continue;
    for (const source of patternsOf(field.body)) {
      const m = cachedPattern(source, 'd').regex.exec(line);
      if (!m) continue;
      const value = m.groups?.[field.column!];
      const at = m.indices?.groups?.[field.column!];
      if (value !== undefined && at) cells.push({ value, start: lineOffset + at[0], end: lineOffset + at[1] });
      break;
    }
  }
  return cells;
}
