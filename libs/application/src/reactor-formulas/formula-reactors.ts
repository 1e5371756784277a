// "Which reactors does formula X have", for the 409 of a formula change that would break them.
import { conflict } from '@vault/domain';
import type { EventStore } from '../ports/event-store';
import type { ReactorOfFormulaDocument, ReactorReadModel } from '../ports/read-models';
import type { ProjectionWaiter } from '../projections/projector';

/**
 * The reactor read model, asked once it has applied every event in the log at the moment of asking, so a reactor whose
 * create has been recorded is never missed because the projector had not reached it yet.
 *
 * The race that remains: a reactor create reads its formula's stream (old contract), a formula change then reads the
 * reactors (not yet holding the new reactor) and records the change, and the reactor create records its reactor. Both
 * reads sit right before their appends, so the window is the few milliseconds of one request's sealing and append; a
 * reactor caught in it holds a configuration its formula no longer declares. It is never silently wrong: PUT/PATCH of
 * it is a 400 naming the settings until its configuration fits again, and the next change of that formula that still
 * does not fit it is a 409 naming it. Closing the window fully would take a write to both streams in one transaction,
 * which neither event store offers.
 */
export class FormulaReactors {
  constructor(
    private readonly events: EventStore,
    private readonly waiter: ProjectionWaiter,
    private readonly reactors: ReactorReadModel,
    private readonly timeoutMs: number,
  ) {}

  async of(formulaId: string): Promise<ReactorOfFormulaDocument[]> {
    const head = await this.events.headPosition();
    if (head !== null && !(await this.waiter.waitFor(head, this.timeoutMs))) {
      throw conflict("The read models are behind the event log, so this formula's reactors cannot be checked yet; retry the request.");
    }
    return this.reactors.ofFormula(formulaId);
  }
}
