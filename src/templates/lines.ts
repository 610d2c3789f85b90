import type { components } from '../../generated/openapi.js';
import { cachedPattern } from './regex.js';
import { patternsOf } from './validate.js';

type TemplateField = components['schemas']['TemplateField'];
type LinesRule = components['schemas']['LinesRule'];
type RegexList = components['schemas']['RegexList'];
type FieldType = components['schemas']['FieldType'];

/** A named group's value in a row, with where in the text it was read (first occurrence). */
export interface Cell {
  value: string;
  start: number;
  end: number;
}

export interface LineRow {
  cells: Map<string, Cell>;
  block: number;
  /** The types of the rule that read the row. */
  types: Record<string, FieldType>;
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
 * invoice2data's `lines` parser for one rule: every block between `start` and `end`, split into
 * text lines; a `first_line` match opens a row, `line` matches add to it, `last_line` closes it
 * and `skip_line` matches are ignored. Without `first_line` and `last_line`, every `line` match
 * is a row. Blocks are numbered from `firstBlock`.
 */
function parseRule(rule: LinesRule, text: string, firstBlock: number): { rows: LineRow[]; blocks: number } {
  const rows: LineRow[] = [];
  const types = rule.types ?? {};
  const firstLine = rule.first_line ?? (rule.last_line === undefined ? rule.line : undefined);
  let from = 0;
  let block = firstBlock;
  for (; ; block += 1) {
    const start = search(rule.start, text, from);
    if (!start) break;
    const end = search(rule.end, text, start.end);
    if (!end) break;
    let offset = start.end;
    let current: Map<string, Cell> | null = null;
    let open = false;
    const close = () => {
      if (current && current.size) rows.push({ cells: current, block, types });
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
      const last = rule.last_line !== undefined ? matchLine(rule.last_line, line) : null;
      if (last) {
        current ??= new Map();
        append(current, last, lineOffset);
        close();
        open = false;
        continue;
      }
      if (rule.skip_line !== undefined && matchLine(rule.skip_line, line)) continue;
      const m = matchLine(rule.line, line);
      if (m) {
        current ??= new Map();
        append(current, m, lineOffset);
      }
    }
    close();
    // An empty end match must not make the search stand still.
    from = Math.max(end.end, from + 1);
  }
  return { rows, blocks: block - firstBlock };
}

/** The rows of a `lines` field: those of its own rule, then of each of its further `rules`, as invoice2data concatenates them. */
export function parseLines(field: TemplateField, text: string): LineRow[] {
  const own: LinesRule = { start: field.start!, end: field.end!, line: field.line!, first_line: field.first_line, last_line: field.last_line, skip_line: field.skip_line, types: field.types };
  const rows: LineRow[] = [];
  let blocks = 0;
  for (const rule of [own, ...(field.rules ?? [])]) {
    const parsed = parseRule(rule, text, blocks);
    rows.push(...parsed.rows);
    blocks += parsed.blocks;
  }
  return rows;
}
