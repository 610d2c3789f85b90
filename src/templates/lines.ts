import type { components } from '../../generated/openapi.js';
import { cachedPattern } from './regex.js';
import { patternsOf } from './validate.js';

type TemplateField = components['schemas']['TemplateField'];
type RegexList = components['schemas']['RegexList'];

/** A named group's value in a row, with where in the text it was read (first occurrence). */
export interface Cell {
  value: string;
  start: number;
  end: number;
}

export interface LineRow {
  cells: Map<string, Cell>;
  block: number;
}

/** The earliest match of any of the patterns at or after `from`. */
function search(list: RegexList, text: string, from: number): { start: number; end: number } | null {
  let best: { start: number; end: number } | null = null;
  for (const source of patternsOf(list)) {
    const regex = cachedPattern(source, 'g').regex;
    regex.lastIndex = from;
    const m = regex.exec(text);
    if (m && (!best || m.index < best.start)) best = { start: m.index, end: m.index + m[0].length };
  }
  return best;
}

/** invoice2data's parse_line: the first pattern that matches the line. */
function matchLine(list: RegexList, line: string): RegExpExecArray | null {
  for (const source of patternsOf(list)) {
    const m = cachedPattern(source, 'd').regex.exec(line);
    if (m) return m;
  }
  return null;
}

function cellsOf(m: RegExpExecArray, offset: number): [string, Cell][] {
  return Object.entries(m.groups ?? {}).map(([name, value]) => {
    const at = m.indices?.groups?.[name] ?? [0, 0];
    return [name, { value: value?.trim() ?? '', start: offset + at[0], end: offset + at[1] }];
  });
}

/** Later lines of a row add to its cells on a new line of text, as invoice2data does for descriptions spread over lines. */
function append(row: Map<string, Cell>, m: RegExpExecArray, offset: number): void {
  for (const [name, cell] of cellsOf(m, offset)) {
    const prior = row.get(name);
    row.set(name, prior ? { ...prior, value: prior.value && cell.value ? `${prior.value}\n${cell.value}` : prior.value || cell.value } : cell);
  }
}

/**
 * invoice2data's `lines` parser: every block between `start` and `end`, split into text lines;
 * a `first_line` match opens a row, `line` matches add to it, `last_line` closes it and
 * `skip_line` matches are ignored. Without `first_line` and `last_line`, every `line` match is a row.
 */
export function parseLines(field: TemplateField, text: string): LineRow[] {
  const rows: LineRow[] = [];
  const firstLine = field.first_line ?? (field.last_line === undefined ? field.line! : undefined);
  let from = 0;
  for (let block = 0; ; block += 1) {
    const start = search(field.start!, text, from);
    if (!start) break;
    const end = search(field.end!, text, start.end);
    if (!end) break;
    let offset = start.end;
    let current: Map<string, Cell> | null = null;
    let open = false;
    const close = () => {
      if (current && current.size) rows.push({ cells: current, block });
      current = null;
    };
    for (const line of text.slice(start.end, end.start).split('\n')) {
      const lineOffset = offset;
      offset += line.length + 1;
      if (!line) continue;
      const first = firstLine !== undefined ? matchLine(firstLine, line) : null;
      if (first) {
        close();
        current = new Map(cellsOf(first, lineOffset));
        open = true;
        continue;
      }
      if (!open) continue;
      const last = field.last_line !== undefined ? matchLine(field.last_line, line) : null;
      if (last) {
        current ??= new Map();
        append(current, last, lineOffset);
        close();
        open = false;
        continue;
      }
      if (field.skip_line !== undefined && matchLine(field.skip_line, line)) continue;
      const m = matchLine(field.line!, line);
      if (m) {
        current ??= new Map();
        append(current, m, lineOffset);
      }
    }
    close();
    // An empty end match must not make the search stand still.
    from = Math.max(end.end, from + 1);
  }
  return rows;
}
