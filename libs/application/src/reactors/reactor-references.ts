// What a reactor decision reads besides the reactor's own stream: its formula and its application, folded from their
// streams, not the read models. The snapshot is read in the same attempt as the decision, just before the append, so
// a formula created, changed or deleted by an answered request is always seen (read-your-writes even when a write
// answered with X-Projection-Pending), and the window in which a formula change and a reactor create can pass each
// other is as short as this process can make it. What is left of that race is described at FormulaReactors.
import {
  applicationDecider,
  applicationStream,
  formulaStream,
  reactorDecider,
  reactorFormulaDecider,
  reactorStream,
  type ApplicationState,
  type Decider,
  type ReactorFormula,
  type ReactorState,
} from '@vault/domain';
import type { EventStore, RecordedEvent } from '../ports/event-store';

export class ReactorReferences {
  constructor(private readonly events: EventStore) {}

  /** The reactor's stream folded: what POST /reactors/{id}/react runs, as its last answered change left it. */
  async reactor(tenantId: string, id: string): Promise<ReactorState> {
    return fold(reactorDecider, await this.events.readStream(reactorStream(tenantId, id)));
  }

  /** The formula (whoever's: the rules decide visibility), or null when the id is null, unknown or deleted. */
  async formula(id: string | null): Promise<ReactorFormula | null> {
    return id === null ? null : fold(reactorFormulaDecider, await this.events.readStream(formulaStream(id)));
  }

  /** The application (deleted ones included: the rules refuse them), or null when the id is null or unknown. */
  async application(id: string | null): Promise<ApplicationState | null> {
    return id === null ? null : fold(applicationDecider, await this.events.readStream(applicationStream(id)));
  }
}

const fold = <S, E>(decider: Pick<Decider<unknown, S, E>, 'evolve' | 'initialState'>, history: RecordedEvent[]): S =>
  history.reduce((state, recorded) => decider.evolve(state, { type: recorded.type, data: recorded.data } as E), decider.initialState());
