import v8 from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { collectGarbage } from './gc.js';
import { serializeError, type Reply, type Request } from './protocol.js';

/** A handler's answer with the buffers to move to the main thread rather than copy. */
export class Transfer<T> {
  constructor(
    readonly value: T,
    readonly list: ArrayBuffer[],
  ) {}
}

/**
 * A job's handler: `progress` is shared with the main thread, which reads it when the job overruns
 * and the worker has been stopped, so that the failure can say what the job was doing.
 */
export type Handler = (payload: never, progress: Int32Array) => unknown;

/** How long a worker waits without a request before it collects its garbage... */
const IDLE_MS = 1_000;
/** ...when its heap and buffers take more than this: after a heavy job, not after every small one. */
const IDLE_COLLECT_BYTES = 64 * 1024 * 1024;

let idleTimer: NodeJS.Timeout | null = null;

/** Gives the memory of the last jobs back once the worker has gone quiet, rather than when the next job happens to allocate. */
function collectWhenIdle(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    const heap = v8.getHeapStatistics();
    if (heap.used_heap_size + heap.external_memory > IDLE_COLLECT_BYTES) collectGarbage();
  }, IDLE_MS);
  idleTimer.unref();
}

/** The worker side of a pool: answers the main thread's requests with `handlers`, by request type. */
export function serve(handlers: Record<string, Handler>): void {
  const port = parentPort!;
  const progress = new Int32Array(workerData.progress as SharedArrayBuffer);
  port.on('message', async ({ id, type, payload }: Request) => {
    let reply: Reply;
    let list: ArrayBuffer[] = [];
    try {
      const handler = handlers[type];
      if (!handler) throw new Error(`no handler for ${type}`);
      const value = await handler(payload as never, progress);
      if (value instanceof Transfer) {
        reply = { id, ok: true, value: value.value };
        list = value.list;
      } else {
        reply = { id, ok: true, value };
      }
    } catch (err) {
      reply = { id, ok: false, error: serializeError(err) };
    }
    port.postMessage(reply, list);
    collectWhenIdle();
  });
  port.postMessage({ ready: true });
}
