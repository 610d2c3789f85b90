import { Worker } from 'node:worker_threads';

/**
 * Calls GET `url` back to back from a thread of its own, so that what the test's own thread does
 * meanwhile (building and sending a large upload) does not count as the server's latency.
 */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let stopping = false;
const calls = [];
parentPort.on('message', () => (stopping = true));
(async () => {
  try {
    while (!stopping) {
      const at = performance.timeOrigin + performance.now();
      const res = await fetch(workerData.url, { headers: workerData.headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error('GET answered ' + res.status);
      calls.push({ at, ms: performance.timeOrigin + performance.now() - at });
      if (calls.length === workerData.warmUp) parentPort.postMessage({ warm: true });
    }
    parentPort.postMessage({ calls });
  } catch (err) {
    parentPort.postMessage({ error: String(err) });
  }
})();
`;

/** Calls made before the measured while: the first connection and the thread's own start are not the server's doing. */
const WARM_UP = 10;

export interface Probe {
  /** Stops calling; resolves with the latency (ms) of every call started since the probe was warm. */
  stop(): Promise<number[]>;
}

type Message = { warm: true } | { calls: { at: number; ms: number }[] } | { error: string };

/** Starts calling; resolves once the first calls are made, from when on calls are measured. */
export async function startProbe(url: string, headers: Record<string, string>): Promise<Probe> {
  const worker = new Worker(PROBE, { eval: true, workerData: { url, headers, warmUp: WARM_UP } });
  const messages: Message[] = [];
  const waiters: ((m: Message) => void)[] = [];
  worker.on('message', (m: Message) => (waiters.length ? waiters.shift()!(m) : messages.push(m)));
  const next = () =>
    new Promise<Message>((resolve, reject) => {
      if (messages.length) resolve(messages.shift()!);
      else waiters.push(resolve);
      worker.once('error', reject);
    });
  const first = await next();
  if ('error' in first) throw new Error(first.error);
  const from = performance.timeOrigin + performance.now();
  return {
    async stop() {
      worker.postMessage('stop');
      const last = await next();
      await worker.terminate();
      if ('error' in last) throw new Error(last.error);
      if (!('calls' in last)) throw new Error('the probe ended without its calls');
      return last.calls.filter((c) => c.at >= from).map((c) => c.ms);
    },
  };
}
