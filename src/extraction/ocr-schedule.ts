/**
 * A document's pages handed to OCR as workers free up. While every worker is busy, as many pages
 * as there are workers may wait, and a worker that finishes takes the waiting page with the most
 * print, which takes longest to read: a dense page left for last would keep one worker reading it
 * long after the others have run out of pages.
 */
export interface PageSchedule<P> {
  /** Adds a page ready to read; resolves once the caller may prepare the next one. */
  add(page: P): Promise<void>;
  /** Starts the pages still waiting as workers free up, and resolves once every page started has been read. */
  finish(): Promise<void>;
}

/**
 * `read` reads one page; its promise must not reject (a page's failure is the caller's to keep).
 * `stopped` tells when a page has failed: no page waiting is started after that. `inkOf` measures
 * a page's print, once, and only when it has to be weighed against another waiting page.
 */
export function scheduleByInk<P>(workers: number, read: (page: P) => Promise<void>, stopped: () => boolean, inkOf: (page: P) => number): PageSchedule<P> {
  const waiting: { page: P; ink?: number }[] = [];
  const reading = new Set<Promise<void>>();
  const ink = (entry: (typeof waiting)[number]) => (entry.ink ??= inkOf(entry.page));

  function startInkiest(): void {
    const inkiest = waiting.length === 1 ? waiting[0]! : waiting.reduce((most, next) => (ink(next) > ink(most) ? next : most));
    waiting.splice(waiting.indexOf(inkiest), 1);
    const job = read(inkiest.page);
    reading.add(job);
    void job.then(() => reading.delete(job));
  }

  /** Starts pages while a worker is free; with `ahead` or more still waiting, waits for a worker and starts one more. */
  async function startReady(ahead: number): Promise<void> {
    while (waiting.length && reading.size < workers && !stopped()) startInkiest();
    if (stopped() || waiting.length < ahead) return;
    await Promise.race(reading);
    if (!stopped()) startInkiest();
  }

  return {
    async add(page) {
      waiting.push({ page });
      await startReady(workers);
    },
    async finish() {
      while (waiting.length && !stopped()) await startReady(1);
      await Promise.all(reading);
    },
  };
}
