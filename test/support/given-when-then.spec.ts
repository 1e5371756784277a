import { DomainError } from '@vault/domain/shared/errors';
import { givenWhenThenFor, type Decider } from './given-when-then';

// A counter that refuses to go past 2: just enough rules to see the helper pass and fail.
type Event = { type: 'Incremented' };
type Command = { type: 'Increment' };
const counter: Decider<Command, number, Event, { max: number }> = {
  initialState: () => 0,
  evolve: (count) => count + 1,
  decide: (_command, count, { max }) => {
    if (count >= max) throw new DomainError('conflict', 'The counter is full.');
    return [{ type: 'Incremented' }];
  },
};

const { given } = givenWhenThenFor(counter, { max: 2 });
const increment: Command = { type: 'Increment' };
const incremented: Event = { type: 'Incremented' };

describe('given/when/then', () => {
  it('replays the history before deciding', () => {
    given([incremented]).when(increment).then([incremented]);
    given([incremented, incremented]).when(increment).then({ error: 'conflict', message: /full/ });
  });

  it('lets one step override the default context', () => {
    given([incremented, incremented]).when(increment, { max: 3 }).then([incremented]);
  });

  it('fails when the events differ', () => {
    expect(() => given([]).when(increment).then([])).toThrow();
  });

  it('fails when an expected rejection does not happen', () => {
    expect(() => given([]).when(increment).then({ error: 'conflict' })).toThrow(/was accepted/);
  });

  it('fails when the rejection is of another kind', () => {
    expect(() => given([incremented, incremented]).when(increment).then({ error: 'forbidden' })).toThrow();
  });
});
