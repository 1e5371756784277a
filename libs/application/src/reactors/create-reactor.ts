// POST /reactors: the formula and application the body names, read from their streams in the attempt that decides;
// the plaintext configuration validated (the domain's one 400), sealed, and recorded with its shape.
import {
  assertReactorIdFree,
  reactorDecider,
  reactorReferences,
  reactorStream,
  validateReactorInput,
  type ReactorCommand,
  type ReactorConfiguration,
  type ReactorFormula,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { IdGenerator } from '../ports/system';
import type { TokenCrypto } from '../ports/token-crypto';
import { toFormulaView } from '../reactor-formulas/formula-view';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { ReactorReferences } from './reactor-references';
import { activeReactor, shownTo, toReactorView, type ReactorView } from './reactor-view';
import { sealConfiguration } from './sealing/reactor-configuration';

export class CreateReactorCommand extends VaultCommand<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class CreateReactorHandler implements UseCaseHandler<CreateReactorCommand> {
  private readonly references: ReactorReferences;

  constructor(
    private readonly runner: CommandRunner,
    events: EventStore,
    private readonly crypto: TokenCrypto,
    private readonly ids: IdGenerator,
  ) {
    this.references = new ReactorReferences(events);
  }

  async execute({ caller, body }: CreateReactorCommand): Promise<ReactorView> {
    const tenantId = caller.principal.tenantId;
    const id = this.ids.newId();
    const { formulaId, applicationId } = reactorReferences(body);
    let formula: ReactorFormula | null = null;
    let configuration: ReactorConfiguration = {};
    const { state } = await this.runner.run(
      reactorDecider,
      reactorStream(tenantId, id),
      async (current): Promise<ReactorCommand> => {
        // The decider's own rule, asked before sealing, so a taken id never leaves a key behind.
        assertReactorIdFree(current);
        formula = await this.references.formula(formulaId);
        const application = await this.references.application(applicationId);
        const valid = validateReactorInput(body, formula, application, tenantId);
        configuration = valid.configuration;
        const content = await sealConfiguration(this.crypto, tenantId, id, valid);
        return { type: 'CreateReactor', data: { id, formula_id: valid.formula_id, content, formula, application } };
      },
      contextOf(caller),
    );
    return shownTo(caller, toReactorView(activeReactor(state), formula === null ? null : toFormulaView(formula), configuration));
  }
}
