// Runs at most N tasks at once; the rest wait in arrival order.
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max must be a positive integer, not ${max}`);
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
}
