import { TenantFairLimit } from './tenant-fair-limit';

/** A task that runs until `finish()`; `started` says whether the limit started it. */
const aTask = (log: string[], name: string) => {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    finish,
    run: async () => {
      log.push(name);
      await done;
      return name;
    },
  };
};
const turn = () => new Promise((resolve) => setImmediate(resolve));
const REFUSED = 'refused';

describe('TenantFairLimit', () => {
  it('lets one tenant hold at most ceil(max / 2) slots and half the queue; past that its runs are refused at once', async () => {
    const limit = new TenantFairLimit({ max: 4, maxWaiting: 16 });
    const log: string[] = [];
    const tasks = Array.from({ length: 20 }, (_, n) => aTask(log, `a${n}`));
    const answers = tasks.map((task) => limit.tryRun('A', task.run, () => REFUSED));
    await turn();
    expect(log).toEqual(['a0', 'a1']);
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(10);
    expect(limit.load('A')).toEqual({ running: 2, waiting: 8 });
    // Another tenant starts at once on a free slot, though A queued first.
    const b = aTask(log, 'b0');
    const bAnswer = limit.tryRun('B', b.run, () => REFUSED);
    await turn();
    expect(log).toEqual(['a0', 'a1', 'b0']);
    b.finish();
    expect(await bAnswer).toBe('b0');
  });

  it('serves waiting tenants in turn, not in arrival order', async () => {
    const limit = new TenantFairLimit({ max: 1, maxWaiting: 8 });
    const log: string[] = [];
    const first = aTask(log, 'a0');
    const queued = [aTask(log, 'a1'), aTask(log, 'a2'), aTask(log, 'a3'), aTask(log, 'b1'), aTask(log, 'c1')];
    void limit.tryRun('A', first.run, () => REFUSED);
    for (const task of queued) void limit.tryRun(task === queued[3] ? 'B' : task === queued[4] ? 'C' : 'A', task.run, () => REFUSED);
    await turn();
    first.finish();
    for (const task of queued) {
      await turn();
      await turn();
      task.finish();
    }
    // Not a0 a1 a2 a3 b1 c1: B and C each come before A's second queued run.
    expect(log.slice(0, 4)).toEqual(['a0', 'a1', 'b1', 'c1']);
  });

  it('counts runs with no owner as one tenant (the caller passes one name for them)', async () => {
    const limit = new TenantFairLimit({ max: 2, maxWaiting: 2 });
    const log: string[] = [];
    const answers = [aTask(log, 'x0'), aTask(log, 'x1'), aTask(log, 'x2')].map((task) => limit.tryRun('anonymous', task.run, () => REFUSED));
    await turn();
    expect(log).toEqual(['x0']);
    expect(answers.map((answer) => answer === undefined)).toEqual([false, false, true]);
  });

  it('once stopped, refuses the waiting runs and every new one, and lets the running ones finish', async () => {
    const limit = new TenantFairLimit({ max: 2, maxWaiting: 4 });
    const log: string[] = [];
    const running = aTask(log, 'a0');
    const runningAnswer = limit.tryRun('A', running.run, () => REFUSED);
    const waiting = aTask(log, 'a1');
    const waitingAnswer = limit.tryRun('A', waiting.run, () => REFUSED);
    limit.stop();
    expect(await waitingAnswer).toBe(REFUSED);
    expect(limit.tryRun('B', aTask(log, 'b0').run, () => REFUSED)).toBeUndefined();
    running.finish();
    expect(await runningAnswer).toBe('a0');
    expect(log).toEqual(['a0']);
  });
});
