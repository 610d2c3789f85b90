import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createPipeline, type Pipeline } from '../../src/extraction/pipeline.js';

/**
 * A pipeline with `ocrWorkers` OCR workers for the describe block this is called in: started
 * before its first test (and before the block's own beforeAll, when called first) and closed
 * after its last. The returned function gives the running pipeline.
 */
export function pipelineFor(ocrWorkers: number): () => Pipeline {
  let pipeline: Pipeline | undefined;
  beforeAll(() => {
    pipeline = createPipeline({ ...loadConfig({}), ocrWorkers });
  });
  afterAll(() => pipeline?.close());
  return () => pipeline!;
}
