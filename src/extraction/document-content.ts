import type { components } from '../../generated/openapi.js';
import type { Box, DocumentText } from './types.js';

type DocumentContent = NonNullable<components['schemas']['DocumentContent']>;

/** Four decimals place a box to a tenth of a point on a letter page, and keep the stored text small. */
const round = (n: number) => Math.round(n * 10_000) / 10_000;
const box = (b: Box): Box => ({ x: round(b.x), y: round(b.y), width: round(b.width), height: round(b.height) });

/** The text of a document as the API returns it with `include=document`: lines with their boxes, no words, no images. */
export function documentContent(document: DocumentText): DocumentContent {
  return {
    pages: document.pages.map((page) => ({
      number: page.number,
      source: page.source,
      width: round(page.size?.width ?? 0),
      height: round(page.size?.height ?? 0),
      rotation: page.size?.rotation ?? 0,
      lines: page.lines.map((line) => ({ text: line.text, bbox: box(line.bbox), confidence: Math.round(line.confidence) })),
    })),
  };
}
