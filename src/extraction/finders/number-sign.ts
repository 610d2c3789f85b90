import { readValue } from './read-value.js';
import type { Finder } from './types.js';
import { spanOf } from './words.js';

/** How far down the first page a document prints its own number. */
const TOP = 0.3;
/** "# INV-0001" alone on its line: a number sign, then an identifier. */
const SIGNED = /^#\s*(\S+)$/;

/**
 * "# invoice_number_1" under a title OCR could not read ("N V E" for a spaced-out "INVOICE"):
 * a number sign heading a line of its own near the top of the first page names the document's
 * number, less surely than a label or a title does.
 */
export const numberSign: Finder = (ctx) => {
  for (const { page, line } of ctx.lines) {
    if (page !== 1 || line.bbox.y > TOP) continue;
    const match = SIGNED.exec(line.text.trim());
    const read = match ? readValue('id', match[1]!, ctx.order) : null;
    if (!read) continue;
    const start = line.text.indexOf(match![1]!);
    return [
      {
        field: 'invoice_number',
        value: read.value,
        score: 0.5,
        ...spanOf(line, start, start + match![1]!.length),
        explanation: `number after a number sign at the top of page ${page} (no label)`,
        page,
        row: line.row,
      },
    ];
  }
  return [];
};
