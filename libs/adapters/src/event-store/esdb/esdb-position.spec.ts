import { START, type AllStreamResolvedEvent, type ResolvedEvent } from '@eventstore/db-client';
import { isAfter, positionOf, startingAt, toEsdbPosition, toLogPosition } from './esdb-position';

const recorded = (position?: { commit: bigint; prepare: bigint }) =>
  ({
    streamId: 'token-1',
    id: 'e1',
    isJson: true,
    revision: 0n,
    type: 'TokenCreated',
    created: new Date(0),
    data: {},
    metadata: undefined,
    position,
  }) as NonNullable<ResolvedEvent['event']>;

describe('EventStoreDB positions', () => {
  it('maps a LogPosition to the client Position and back unchanged', () => {
    const p = { commit: 12_345_678_901_234n, prepare: 12_345_678_901_000n };
    expect(toEsdbPosition(p)).toEqual(p);
    expect(toLogPosition(toEsdbPosition(p))).toEqual(p);
  });

  it('starts at START when there is no position yet', () => {
    expect(startingAt(null)).toBe(START);
    expect(startingAt({ commit: 5n, prepare: 4n })).toEqual({ commit: 5n, prepare: 4n });
  });

  it.each([
    [{ commit: 10n, prepare: 10n }, null, true],
    [{ commit: 10n, prepare: 10n }, { commit: 10n, prepare: 10n }, false],
    [{ commit: 10n, prepare: 11n }, { commit: 10n, prepare: 10n }, true],
    [{ commit: 11n, prepare: 0n }, { commit: 10n, prepare: 99n }, true],
    [{ commit: 9n, prepare: 99n }, { commit: 10n, prepare: 0n }, false],
  ])('isAfter(%p, %p) is %p', (p, after, expected) => {
    expect(isAfter(p, after)).toBe(expected);
  });

  it('takes the event position when the server sends it', () => {
    const resolved: AllStreamResolvedEvent = {
      event: recorded({ commit: 200n, prepare: 190n }) as AllStreamResolvedEvent['event'],
      commitPosition: 200n,
    };
    expect(positionOf(resolved)).toEqual({ commit: 200n, prepare: 190n });
  });

  it('falls back to the commit position for stream reads from servers before 22.6', () => {
    expect(positionOf({ event: recorded(undefined), commitPosition: 300n })).toEqual({ commit: 300n, prepare: 300n });
  });

  it('fails clearly when an event carries no position at all', () => {
    expect(() => positionOf({ event: recorded(undefined) })).toThrow(
      'EventStoreDB returned event e1 without a log position',
    );
  });
});
