import type { components } from '../../generated/openapi.js';
import type { PackedDocument } from '../extraction/packed-lines.js';
import type { FoundField } from '../extraction/types.js';

/** What passes between the template runner (./runner.ts) and its workers (./template-worker.ts). */

type Template = components['schemas']['Template'];

/** What the main thread sends: the templates to try in order (or the one to apply), and the document. */
export interface ApplyRequest {
  templates: Template[];
  document: PackedDocument;
  /** Select among `templates` by their keywords; otherwise apply the only one. */
  select: boolean;
}

export interface ApplyResult {
  /** Index in `templates` of the template applied, -1 when none matched. */
  index: number;
  fields: FoundField[];
}

/** Slots of the progress shared with the main thread. */
export const PROGRESS = { phase: 0, template: 1, step: 2 } as const;
export const PHASE = { selecting: 1, applying: 2 } as const;
