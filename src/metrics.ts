import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics for one server; a registry per instance so tests can run several in one process. */
export function createMetrics(ocrQueueDepth: () => number = () => 0) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'docex_' });
  const httpRequests = new Counter({
    name: 'docex_http_requests_total',
    help: 'HTTP requests by operation and status.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'docex_http_request_duration_seconds',
    help: 'HTTP request duration by operation and status.',
    labelNames: ['operation', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const extractionDuration = new Histogram({
    name: 'docex_extraction_duration_seconds',
    help: 'Extraction pipeline duration by file type and path (text layer, OCR or both).',
    labelNames: ['file_type', 'path'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [registry],
  });
  const ocrQueue = new Gauge({
    name: 'docex_ocr_queue_depth',
    help: 'OCR jobs waiting for a worker.',
    registers: [registry],
    collect() {
      this.set(ocrQueueDepth());
    },
  });
  const secondReadings = new Counter({
    name: 'docex_ocr_second_readings_total',
    help: 'Documents whose OCR page was read a second time because a key field (vendor, date, total) was missing or in doubt.',
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'docex_rate_limit_rejections_total',
    help: 'Requests refused with 429, by window.',
    labelNames: ['window'] as const,
    registers: [registry],
  });
  return { registry, httpRequests, httpDuration, extractionDuration, secondReadings, ocrQueue, rateLimitRejections };
}

export type Metrics = ReturnType<typeof createMetrics>;
