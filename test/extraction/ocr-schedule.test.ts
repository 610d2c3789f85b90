import { describe, expect, it } from 'vitest';
import { scheduleByInk } from '../../src/extraction/ocr-schedule.js';

/** Reads that finish when the test says, recording which started and how many ran at once. */
function fakeReads() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  let running = 0;
  let most = 0;
  const read = (page: string) =>
    new Promise<void>((resolve) => {
      started.push(page);
      running += 1;
      most = Math.max(most, running);
      finishers.set(page, () => {
        running -= 1;
        resolve();
      });
    });
  return { started, read, finish: (page: string) => finishers.get(page)!(), most: () => most };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Each page's share of ink, by name; the pages measured, in order. */
function inks(shares: Record<string, number>) {
  const measured: string[] = [];
  return {
    measured,
    inkOf: (page: string) => {
      measured.push(page);
      return shares[page]!;
    },
  };
}

describe('pages handed to OCR workers', () => {
  it('starts pages at once while a worker is free, then the waiting page with the most print first', async () => {
    const reads = fakeReads();
    const ink = inks({ p1: 0.02, p2: 0.02, p3: 0.01, p4: 0.05 });
    const schedule = scheduleByInk(2, reads.read, () => false, ink.inkOf);
    await schedule.add('p1');
    await schedule.add('p2');
    expect(reads.started).toEqual(['p1', 'p2']);
    const third = schedule.add('p3');
    await settle();
    const fourth = schedule.add('p4');
    let fourthAdded = false;
    void fourth.then(() => (fourthAdded = true));
    await settle();
    // Two pages wait for a worker: the caller prepares no third until one is taken.
    expect(fourthAdded).toBe(false);
    reads.finish('p1');
    await fourth;
    expect(reads.started).toEqual(['p1', 'p2', 'p4']);
    const done = schedule.finish();
    reads.finish('p2');
    await settle();
    expect(reads.started).toEqual(['p1', 'p2', 'p4', 'p3']);
    reads.finish('p4');
    reads.finish('p3');
    await Promise.all([third, done]);
    expect(reads.most()).toBe(2);
    // Only the two pages that waited together were weighed, each once.
    expect(ink.measured).toEqual(['p4', 'p3']);
  });

  it('starts no waiting page once one has failed, and finishes when those started are read', async () => {
    const reads = fakeReads();
    let failed = false;
    const schedule = scheduleByInk(1, reads.read, () => failed, inks({ p1: 0.01, p2: 0.01 }).inkOf);
    await schedule.add('p1');
    const second = schedule.add('p2');
    failed = true;
    reads.finish('p1');
    await second;
    await schedule.finish();
    expect(reads.started).toEqual(['p1']);
  });
});
