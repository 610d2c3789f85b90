import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../logger.js';
import { serve } from '../workers/serve.js';
import { bufferOver } from './buffer-over.js';
import { createPipeline } from './pipeline.js';
import { QUEUE_DEPTH, READY, type ExtractRequest, type PipelineEvent, type PipelineThreadData } from './pipeline-thread.js';

/** How often the thread writes whether it is ready and how many OCR jobs wait, for /readyz and the metrics. */
const REPORT_MS = 100;

const { config, state } = workerData as PipelineThreadData;
const port = parentPort!;
const tell = (event: PipelineEvent) => port.postMessage(event);
const logger = createLogger(config.logLevel, { write: (line: string) => tell({ log: line }) });
const pipeline = createPipeline(config, { logger, onExtraction: (extraction) => tell({ extraction }) });
const shared = new Int32Array(state);

setInterval(() => {
  Atomics.store(shared, READY, pipeline.ready() ? 1 : 0);
  Atomics.store(shared, QUEUE_DEPTH, pipeline.queueDepth());
}, REPORT_MS);

serve({
  extract: ({ bytes, contentType, languages }: ExtractRequest) => pipeline.extract({ bytes: bufferOver(bytes), contentType, languages }),
  close: () => pipeline.close(),
});
