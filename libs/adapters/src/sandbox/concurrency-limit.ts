// Runs at most N tasks at once; the rest wait in arrival order, in a queue that may be bounded.
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  /**
   * @param max tasks running at once.
   * @param maxWaiting tasks `tryRun` lets wait for a slot; `run` always lets its task wait.
   */
  constructor(
    private readonly max: number,
    private readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a positive integer, not ${max}`);
    if (!(maxWaiting === Number.POSITIVE_INFINITY || (Number.isInteger(maxWaiting) && maxWaiting >= 0))) {
      throw new RangeError(`maxWaiting must be a non-negative integer, not ${maxWaiting}`);
    }
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, so `running` never drops and lets a newcomer jump the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Like `run`, but answers `undefined` at once, without running the task, when `maxWaiting` tasks already wait. */
  tryRun<T>(task: () => Promise<T>): Promise<T> | undefined {
    if (this.running >= this.max && this.waiting.length >= this.maxWaiting) return undefined;
    return this.run(task);
  }
}
