import type { DocumentText } from './types.js';

/**
 * The document as plain text for regex templates: lines of one visual row joined by a tab (so a
 * label and the value in the next column stay on one text line), rows by "\n", pages by "\f".
 */
export function documentText(doc: DocumentText): string {
  return doc.pages
    .map((page) => {
      const rows: string[] = [];
      let lastRow = -1;
      for (const line of page.lines) {
        if (line.row === lastRow) rows[rows.length - 1] += `\t${line.text}`;
        else rows.push(line.text);
        lastRow = line.row;
      }
      return rows.join('\n');
    })
    .join('\f');
}
