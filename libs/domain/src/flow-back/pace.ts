// How often checking an answer gives the event loop a turn: every pass over a text counts the work it did, and a step
// ends once enough is done, wherever in which pass. A pass never reads more than a bounded stretch of text per
// character it moves on, so the work between two yields stays bounded too.

/**
 * Work per step, in characters read by a simple pass (a scan of needles weighs more a character): a few milliseconds,
 * well within the 50 ms one request may hold the event loop.
 */
export const WORK_PER_STEP = 64_000;

/** Characters a pass reads between two looks at its pace. */
export const CHUNK = 4096;

/** The work done since the last yield, shared by every pass of one check. */
export class Pace {
  private done = 0;

  /** Counts `work` done; true when the step is over and the caller should yield. */
  due(work: number): boolean {
    this.done += work;
    if (this.done < WORK_PER_STEP) return false;
    this.done = 0;
    return true;
  }
}
