import type { Logger } from 'pino';
import type { components } from '../../generated/openapi.js';
import type { Config } from '../config.js';
import { DocumentError } from '../errors.js';
import { packDocument } from '../extraction/packed-lines.js';
import type { DocumentText, FoundField } from '../extraction/types.js';
import { createWorkerPool, WorkerStopped } from '../workers/pool.js';
import { stepName } from './engine.js';
import { PHASE, PROGRESS, type ApplyRequest, type ApplyResult } from './template-job.js';

type Template = components['schemas']['Template'];

export type TemplateRunnerConfig = Pick<Config, 'templateWorkers' | 'templateTimeoutMs' | 'templateWorkerHeapMb'>;

export interface TemplateRunner {
  /**
   * Selects among `templates` by their keywords (`select`), or takes the only one, and applies it
   * to the document. `pages` is what a failure counts as done.
   */
  run<T extends Template>(templates: T[], document: DocumentText, options: { select: boolean; pages: number }): Promise<{ template: T | undefined; fields: FoundField[] }>;
  close(): Promise<void>;
}

/** Which template and rule the worker was on when it was stopped, from what it wrote before each rule. */
function where(templates: Template[], progress: Int32Array): string {
  const phase = Atomics.load(progress, PROGRESS.phase);
  const template = templates[Atomics.load(progress, PROGRESS.template)];
  if (!phase || !template) return 'Templates';
  const rule = stepName(template, Atomics.load(progress, PROGRESS.step));
  return `${phase === PHASE.selecting ? 'While templates were tried, template' : 'Template'} '${template.name}' (${template.id}), rule '${rule}',`;
}

/**
 * Template selection and application in a worker pool: the patterns are the tenants' own, so each
 * document's template work has a time budget, and a worker stuck in a pattern that backtracks
 * without end is terminated and replaced; the extraction fails naming the template and rule.
 */
export function createTemplateRunner(config: TemplateRunnerConfig, logger?: Logger): TemplateRunner {
  const pool = createWorkerPool({
    name: 'template',
    entry: new URL('./template-worker.js', import.meta.url),
    workers: config.templateWorkers,
    // Only documents already read come here (every job is a continuation): no queue of new work to bound.
    queueMax: 0,
    heapMb: config.templateWorkerHeapMb,
    logger,
  });

  function failure(err: unknown, templates: Template[], progress: Int32Array | null, pages: number): unknown {
    if (!(err instanceof WorkerStopped)) return err;
    const at = progress ? where(templates, progress) : 'Templates';
    switch (err.reason) {
      case 'timeout':
        return new DocumentError(
          'template_timeout',
          `${at} took longer than ${config.templateTimeoutMs} ms on this document, the time templates may take, and was stopped; its pattern may backtrack without end on this text.`,
          pages,
        );
      case 'out_of_memory':
        return new DocumentError('document_too_complex', `${at} needed more than the ${config.templateWorkerHeapMb} MB of memory templates may use, and was stopped.`, pages);
      case 'closed':
        return new DocumentError('interrupted', 'The service is shutting down.', pages);
      default:
        return new Error(`template worker failed: ${err.message}`);
    }
  }

  return {
    async run(templates, document, { select, pages }) {
      // The document has been read: its template work waits for a worker rather than being refused.
      const job = await pool.acquire(config.templateTimeoutMs, { continuation: true }).catch((err: unknown) => {
        throw failure(err, templates, null, pages);
      });
      try {
        const request: ApplyRequest = { templates, document: packDocument(document), select };
        const { index, fields } = await job.call<ApplyResult>('apply', request);
        return { template: templates[index], fields };
      } catch (err) {
        throw failure(err, templates, job.progress, pages);
      } finally {
        job.release();
      }
    },
    close: () => pool.close(),
  };
}
