import { unpackDocument } from '../extraction/packed-lines.js';
import { serve } from '../workers/serve.js';
import { applyTemplate, selectTemplate } from './engine.js';
import { PHASE, PROGRESS, type ApplyRequest, type ApplyResult } from './template-job.js';
import { templateText } from './text.js';

/** A template worker: every tenant pattern (keywords, replacements, rules) runs here, never on the event loop. */
serve({
  apply({ templates, document: packed, select }: ApplyRequest, progress: Int32Array): ApplyResult {
    const document = unpackDocument(packed);
    const mark = (phase: number, template: number, step: number) => {
      Atomics.store(progress, PROGRESS.template, template);
      Atomics.store(progress, PROGRESS.step, step);
      Atomics.store(progress, PROGRESS.phase, phase);
    };
    let index = 0;
    if (select) {
      const chosen = selectTemplate(templates, templateText(document).text, (template, step) => mark(PHASE.selecting, template, step));
      if (!chosen) return { index: -1, fields: [] };
      index = templates.indexOf(chosen);
    }
    return { index, fields: applyTemplate(templates[index]!, document, (step) => mark(PHASE.applying, index, step)) };
  },
});
