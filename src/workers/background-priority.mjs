// Plain JavaScript so that every worker thread can run it first, whoever starts it: ./bootstrap.mjs
// for this service's pools, ../extraction/ocr-thread.mjs for tesseract.js's.
import os from 'node:os';

/** How many steps of niceness a worker thread runs below the thread that answers requests. */
const STEPS_BELOW = 10;

/**
 * Lowers the CPU priority of the calling thread, and of it alone: on Linux a thread's niceness is
 * its own. Workers reading documents keep every core busy when they have work, and the kernel then
 * runs the event loop (requests, the database's answers) ahead of them whenever it has something
 * to do; an idle machine runs them at full speed all the same. Elsewhere `setpriority` would lower
 * the whole process, so nothing is done there.
 */
export function lowerThisThread() {
  if (process.platform !== 'linux') return;
  try {
    os.setPriority(Math.min(19, os.getPriority() + STEPS_BELOW));
  } catch {
    // The priority only orders work: a thread whose sandbox refuses the call runs as it is.
  }
}
