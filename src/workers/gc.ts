import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection of this thread's heap, on demand. A worker that has just rendered a
 * page, or given up on a damaged PDF, holds hundreds of MB of garbage (a page's canvas and pixels;
 * 300 MB of pdf.js's attempts at a 720-byte truncated file) and then sits idle, so nothing prompts
 * V8 to collect it: measured, a run of the hostile documents peaked at 1.6 GB instead of under 1
 * and stayed there. Worker threads cannot be started with --expose-gc; setting the flag at run
 * time exposes `gc` to contexts created afterwards (Jest does the same for its heap logging).
 */
v8.setFlagsFromString('--expose-gc');
export const collectGarbage = vm.runInNewContext('gc') as () => void;
