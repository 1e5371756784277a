import { ConcurrencyLimit } from './concurrency-limit';

describe('ConcurrencyLimit', () => {
  it('never runs more than its maximum at once, and runs every task in arrival order', async () => {
    const limit = new ConcurrencyLimit(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return i;
    };
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => limit.run(task(i))));
    expect(results).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('frees the slot of a task that fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(limit.run(async () => 'next')).resolves.toBe('next');
  });
});
