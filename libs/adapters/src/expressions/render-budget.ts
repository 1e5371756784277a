// The time budget of caller-written expressions, counted in CPU time rather than wall time: a loaded machine's pauses
// must not turn a plain request into a 400, while an expression that keeps the event loop busy is still stopped.

/**
 * Node 20 has no clock of one thread's CPU time, so the budget reads two clocks that never count less than the event
 * loop thread's own CPU time, and is spent only once both say so:
 * - wall time also counts the time the thread did not run (descheduled on a loaded machine, blocked);
 * - the process's CPU time (`process.cpuUsage`, user + system) also counts its other threads: V8's compiler and GC
 *   threads (on an idle machine they double a short render's count), the SQLite writer and count workers.
 * Either alone would refuse expressions that did not use their budget; together they do so only when the event loop
 * stalled for the budget's length while the other threads used as much CPU. A hostile expression keeps the event loop
 * thread on the CPU, which both clocks count, so it is stopped once it has used its budget.
 * The wall clock costs about 50 ns a read and is read first; the process's CPU time (about 2 µs, a system call) only
 * once the wall clock says the budget may be spent, since liquidjs asks between every two template nodes.
 */
export class RenderBudget {
  private readonly cpuStart = processCpuMicros();
  /** Until then the event loop thread cannot have used the budget, whatever the process's CPU time says. */
  private nextLook: number;

  constructor(private readonly limitMs: number) {
    this.nextLook = performance.now() + limitMs;
  }

  spent(now = performance.now()): boolean {
    if (now < this.nextLook) return false;
    const left = this.limitMs - (processCpuMicros() - this.cpuStart) / 1_000;
    if (left <= 0) return true;
    // The thread's CPU time grows no faster than wall time: it cannot use what is left before that much has passed.
    this.nextLook = now + left;
    return false;
  }

  /** liquidjs's render limiter: it calls this with `performance.now()` before each template node. */
  check(now: number): void {
    if (this.spent(now)) throw new RenderBudgetSpent();
  }
}

export class RenderBudgetSpent extends Error {
  constructor() {
    super('template render limit exceeded');
    this.name = 'RenderBudgetSpent';
  }
}

const processCpuMicros = (): number => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
