// tesseract.js's worker thread, started at a lower CPU priority than the event loop (see
// ../workers/background-priority.mjs). Given to createWorker as its `workerPath`; what runs after
// that is the Node worker script tesseract.js starts when no `workerPath` is given.
import { createRequire } from 'node:module';
import { lowerThisThread } from '../workers/background-priority.mjs';

lowerThisThread();
createRequire(import.meta.url)('tesseract.js/src/worker-script/node/index.js');
