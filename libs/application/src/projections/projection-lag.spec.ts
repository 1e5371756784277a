import type { Backlog } from '../ports/event-store';
import { lagOf, readinessOf, type ProjectionLag, type ReadinessInput } from './projection-lag';

const NOW = new Date('2024-05-01T10:00:30.000Z');
const backlog = (overrides: Partial<Backlog> = {}): Backlog => ({ events: 0, capped: false, oldestTimestamp: null, ...overrides });
const lag = (overrides: Partial<ProjectionLag> = {}): ProjectionLag => ({ events: 0, eventsCapped: false, seconds: 0, ...overrides });

describe('lagOf', () => {
  it.each<[string, Backlog, ProjectionLag]>([
    ['nothing pending', backlog(), lag()],
    ['3 events, the oldest written 12.5 s ago', backlog({ events: 3, oldestTimestamp: '2024-05-01T10:00:17.500Z' }), lag({ events: 3, seconds: 12.5 })],
    ['more than the cap', backlog({ events: 1000, capped: true, oldestTimestamp: '2024-05-01T09:59:30.000Z' }), lag({ events: 1000, eventsCapped: true, seconds: 60 })],
    ['an oldest event stamped ahead of this clock', backlog({ events: 1, oldestTimestamp: '2024-05-01T10:00:31.000Z' }), lag({ events: 1 })],
    ['an unreadable timestamp', backlog({ events: 1, oldestTimestamp: 'yesterday-ish' }), lag({ events: 1 })],
  ])('%s', (_, given, expected) => {
    expect(lagOf(given, NOW)).toEqual(expected);
  });
});

describe('readinessOf', () => {
  const input = (overrides: Partial<ReadinessInput> = {}): ReadinessInput => ({ caughtUpOnce: true, failure: null, lag: lag(), ...overrides });

  it.each<[string, ReadinessInput, ReturnType<typeof readinessOf>]>([
    ['caught up, nothing pending', input(), { ready: true }],
    ['another process projects, read model current', input({ caughtUpOnce: null }), { ready: true }],
    ['1000 events behind, 30 s old: at the limits', input({ lag: lag({ events: 1000, seconds: 30 }) }), { ready: true }],
    ['not caught up once yet, though nothing seems pending', input({ caughtUpOnce: false }), { ready: false, reason: 'the projector has not caught up with the log yet' }],
    ['more events pending than counted', input({ lag: lag({ events: 1000, eventsCapped: true }) }), { ready: false, reason: 'more than 1000 events wait to be applied' }],
    ['a few events, but waiting for over 30 s', input({ lag: lag({ events: 2, seconds: 30.001 }) }), { ready: false, reason: 'the oldest event waiting to be applied is over 30 s old' }],
    ['another process projects, and is far behind', input({ caughtUpOnce: null, lag: lag({ events: 1000, eventsCapped: true }) }), { ready: false, reason: 'more than 1000 events wait to be applied' }],
    ['stopped for good', input({ failure: 'The event store denied access: subscribe to $all' }), { ready: false, reason: 'the projector stopped: The event store denied access: subscribe to $all' }],
  ])('%s', (_, given, expected) => {
    expect(readinessOf(given)).toEqual(expected);
  });
});
