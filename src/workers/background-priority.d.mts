/** Lowers the CPU priority of the calling worker thread below the event loop's (see ./background-priority.mjs). */
export function lowerThisThread(): void;
