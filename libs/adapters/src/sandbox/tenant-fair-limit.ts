// Runs at most N tasks at once, shared fairly between tenants: each may hold at most its share of the slots and of the
// queue, and the queue serves tenants in turn, so one tenant's flood cannot keep another's runs waiting.

export interface TenantFairLimitOptions {
  /** Tasks running at once, over all tenants. */
  max: number;
  /** Tasks waiting for a slot, over all tenants. */
  maxWaiting: number;
  /** Tasks of one tenant running at once; defaults to ceil(max / 2). */
  maxPerTenant?: number;
  /** Tasks of one tenant waiting; defaults to ceil(maxWaiting / 2). */
  maxWaitingPerTenant?: number;
}

interface Waiter {
  start(): void;
  refuse(): void;
}

interface Tenant {
  running: number;
  readonly waiting: Waiter[];
}

export class TenantFairLimit {
  private readonly max: number;
  private readonly maxWaiting: number;
  private readonly maxPerTenant: number;
  private readonly maxWaitingPerTenant: number;
  private running = 0;
  private waiting = 0;
  /** Tenants with a task running or waiting; the order is the round-robin turn (the next served is moved last). */
  private readonly tenants = new Map<string, Tenant>();
  private stopped = false;

  constructor(options: TenantFairLimitOptions) {
    this.max = options.max;
    this.maxWaiting = options.maxWaiting;
    this.maxPerTenant = options.maxPerTenant ?? Math.ceil(options.max / 2);
    this.maxWaitingPerTenant = options.maxWaitingPerTenant ?? Math.ceil(options.maxWaiting / 2);
    if (!Number.isInteger(this.max) || this.max < 1) throw new RangeError(`max must be a positive integer, not ${this.max}`);
    if (!Number.isInteger(this.maxPerTenant) || this.maxPerTenant < 1) {
      throw new RangeError(`maxPerTenant must be a positive integer, not ${this.maxPerTenant}`);
    }
    for (const [name, value] of [
      ['maxWaiting', this.maxWaiting],
      ['maxWaitingPerTenant', this.maxWaitingPerTenant],
    ] as const) {
      if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, not ${value}`);
    }
  }

  /**
   * Runs `task` for `tenant` now or after its turn in the queue. Answers `undefined` at once, running nothing, when the
   * tenant already waits its share of the queue (or the queue is full) or the limit was stopped. A task that waited
   * and is refused by `stop()` resolves to `refused()`.
   */
  tryRun<T>(tenant: string, task: () => Promise<T>, refused: () => T): Promise<T> | undefined {
    if (this.stopped) return undefined;
    const state = this.tenants.get(tenant) ?? { running: 0, waiting: [] };
    if (state.waiting.length === 0 && this.running < this.max && state.running < this.maxPerTenant) {
      this.tenants.set(tenant, state);
      this.begin(tenant, state);
      return this.runTask(tenant, state, task);
    }
    if (state.waiting.length >= this.maxWaitingPerTenant || this.waiting >= this.maxWaiting) return undefined;
    this.tenants.set(tenant, state);
    return new Promise<T>((resolve, reject) => {
      state.waiting.push({
        start: () => this.runTask(tenant, state, task).then(resolve, reject),
        refuse: () => resolve(refused()),
      });
      this.waiting++;
    });
  }

  /** Starts nothing more: every waiting task is refused now, every later one at once. Running tasks go on. */
  stop(): void {
    this.stopped = true;
    for (const state of this.tenants.values()) {
      for (const waiter of state.waiting.splice(0)) {
        this.waiting--;
        waiter.refuse();
      }
    }
  }

  /** Tasks running now for `tenant`, and waiting. */
  load(tenant: string): { running: number; waiting: number } {
    const state = this.tenants.get(tenant);
    return { running: state?.running ?? 0, waiting: state?.waiting.length ?? 0 };
  }

  private begin(tenant: string, state: Tenant): void {
    this.running++;
    state.running++;
    // Served now: its next turn comes after every other tenant's.
    this.tenants.delete(tenant);
    this.tenants.set(tenant, state);
  }

  private async runTask<T>(tenant: string, state: Tenant, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      this.running--;
      state.running--;
      if (state.running === 0 && state.waiting.length === 0 && this.tenants.get(tenant) === state) this.tenants.delete(tenant);
      this.next();
    }
  }

  /** Fills free slots from the queue, in turn: the first tenant (least recently served) with a task waiting and room. */
  private next(): void {
    while (!this.stopped && this.running < this.max && this.waiting > 0) {
      let served = false;
      for (const [tenant, state] of this.tenants) {
        if (state.waiting.length === 0 || state.running >= this.maxPerTenant) continue;
        const waiter = state.waiting.shift()!;
        this.waiting--;
        this.begin(tenant, state);
        waiter.start();
        served = true;
        break;
      }
      if (!served) return;
    }
  }
}
