import path from 'node:path';
import type { Corpus } from './corpus.js';
import { loadTruth, scoreLabelled } from './labelled.js';

/** German EN 16931 invoices, text-layer PDFs, the attached invoice XML ignored. */
export const einvoice: Corpus = {
  name: 'einvoice-dev',
  folder: 'einvoice-dev',
  async run(ctx) {
    console.log('\n## einvoice-dev: German e-invoices, text layer (attached XML ignored)');
    const { judged, goals } = await scoreLabelled(ctx, 'einvoice-dev text', loadTruth(path.join(ctx.root, 'einvoice-dev')), 'application/pdf', 0.95);
    return { judged, goals };
  },
};
