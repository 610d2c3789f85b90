/** Longest stretch of pixel work between two turns of the event loop: a 300-dpi page takes tens of milliseconds. */
const SLICE_MS = 4;

/** Returns a promise to await when the current slice of work has run its time, so that other requests' handlers run meanwhile. */
export function pacer(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined;
    return new Promise((resolve) => {
      setImmediate(() => {
        since = performance.now();
        resolve();
      });
    });
  };
}
