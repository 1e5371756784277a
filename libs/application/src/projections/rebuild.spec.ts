import { logFraction, progressOf } from './rebuild';

const at = (commit: bigint) => ({ commit, prepare: commit });

describe('logFraction', () => {
  it.each([
    ['a quarter of the byte offsets', at(2_500_000n), at(10_000_000n), 0.25],
    ['the head itself', at(10_000_000n), at(10_000_000n), 1],
    ['past a head read before later appends', at(12_000_000n), at(10_000_000n), 1],
    ['an empty log at start', at(5n), null, 1],
  ])('%s', (_, position, head, expected) => {
    expect(logFraction(position, head)).toBe(expected);
  });
});

describe('progressOf', () => {
  it('extrapolates the total and the time left from the share of the log read', () => {
    expect(progressOf(5_000, 0.25, 10)).toEqual({ events: 5_000, total: 20_000, percent: 25, eventsPerSecond: 500, etaSeconds: 30 });
  });

  it('is exact at the end', () => {
    expect(progressOf(17, 1, 2)).toEqual({ events: 17, total: 17, percent: 100, eventsPerSecond: 8.5, etaSeconds: 0 });
  });

  it('has no estimate before any of the log is read', () => {
    expect(progressOf(0, 0, 1)).toMatchObject({ total: 0, percent: 0, etaSeconds: null });
  });
});
