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

describe('ConcurrencyLimit with a bounded queue', () => {
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { open, opened };
  };

  it('lets maxWaiting tasks wait, refuses the next one without running it, and takes tasks again once one starts', async () => {
    const limit = new ConcurrencyLimit(2, 1);
    const first = gate();
    const ran: string[] = [];
    const task = (name: string, until: Promise<void> = Promise.resolve()) => async () => {
      ran.push(name);
      await until;
      return name;
    };
    const running = [limit.tryRun(task('a', first.opened)), limit.tryRun(task('b', first.opened))];
    const waiting = limit.tryRun(task('c'));
    expect(running.every(Boolean) && waiting).toBeTruthy();
    expect(limit.tryRun(task('refused'))).toBeUndefined();

    first.open();
    await expect(Promise.all([...running, waiting])).resolves.toEqual(['a', 'b', 'c']);
    await expect(limit.tryRun(task('d'))).resolves.toBe('d');
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
  });

  it('with maxWaiting 0 runs tasks only while a slot is free', async () => {
    const limit = new ConcurrencyLimit(1, 0);
    const first = gate();
    const running = limit.tryRun(async () => first.opened);
    expect(limit.tryRun(async () => 'refused')).toBeUndefined();
    first.open();
    await running;
    await expect(limit.tryRun(async () => 'next')).resolves.toBe('next');
  });

  it.each([[-1], [1.5], [Number.NaN]])('refuses a maxWaiting of %p', (maxWaiting) => {
    expect(() => new ConcurrencyLimit(1, maxWaiting)).toThrow(RangeError);
  });
});
