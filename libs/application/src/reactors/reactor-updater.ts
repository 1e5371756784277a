// The step PUT and PATCH /reactors/{id} share: the body a PUT would send, built from the current reactor in the
// attempt that decides, validated against the formula and application as their streams are now, sealed, recorded.
import {
  findVisibleReactor,
  reactorDecider,
  reactorReferences,
  reactorStream,
  validateReactorUpdateInput,
  type ReactorCommand,
  type ReactorConfiguration,
  type ReactorFormula,
  type ReactorRecord,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { TokenCrypto } from '../ports/token-crypto';
import { toFormulaView } from '../reactor-formulas/formula-view';
import { contextOf, type Caller } from '../shared/use-case';
import { ReactorReferences } from './reactor-references';
import { activeReactor, shownTo, toReactorView, type ReactorView } from './reactor-view';
import { sealConfiguration } from './sealing/reactor-configuration';

export class ReactorUpdater {
  private readonly references: ReactorReferences;

  constructor(
    private readonly runner: CommandRunner,
    events: EventStore,
    private readonly crypto: TokenCrypto,
  ) {
    this.references = new ReactorReferences(events);
  }

  async update(caller: Caller, id: string, bodyOf: (current: ReactorRecord) => Promise<unknown>): Promise<ReactorView> {
    const ctx = contextOf(caller);
    const tenantId = caller.principal.tenantId;
    let formula: ReactorFormula | null = null;
    let configuration: ReactorConfiguration = {};
    const { state } = await this.runner.run(
      reactorDecider,
      reactorStream(tenantId, id),
      async (current): Promise<ReactorCommand> => {
        const reactor = findVisibleReactor(current, ctx);
        formula = await this.references.formula(reactor.formula_id);
        const body = await bodyOf(reactor);
        const application = await this.references.application(reactorReferences(body).applicationId);
        const valid = validateReactorUpdateInput(body, formula, application, tenantId);
        configuration = valid.configuration;
        const content = await sealConfiguration(this.crypto, tenantId, id, valid);
        return { type: 'UpdateReactor', data: { id, content, formula, application } };
      },
      ctx,
    );
    return shownTo(caller, toReactorView(activeReactor(state), formula === null ? null : toFormulaView(formula), configuration));
  }
}
