// A decider (Jérémie Chassaing's pattern, as emmett names it): what an aggregate's commands record, from its state.
import type { CommandContext } from './events';

export interface Decider<Command, State, Event, Context = CommandContext> {
  decide(command: Command, state: State, context: Context): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}
