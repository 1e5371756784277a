// PUT /reactor-formulas/{id}: validated and compiled as a create is; a change that would break a reactor of the
// formula is a 409 naming it.
import { validateFormulaInput, type ReactorFormulaCommand } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import { assertCodeCompiles, type FormulaCodeChecker } from '../ports/formula-code-checker';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import type { FormulaReactors } from './formula-reactors';
import { toFormulaView, type FormulaView } from './formula-view';
import { recordedFormula, runFormulaCommand } from './run-formula-command';

export class UpdateReactorFormulaCommand extends VaultCommand<FormulaView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly body: unknown,
  ) {
    super();
  }
}

export class UpdateReactorFormulaHandler implements UseCaseHandler<UpdateReactorFormulaCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly checker: FormulaCodeChecker,
    private readonly reactors: FormulaReactors,
  ) {}

  async execute({ caller, id, body }: UpdateReactorFormulaCommand): Promise<FormulaView> {
    const input = validateFormulaInput(body);
    await assertCodeCompiles(this.checker, input.code, { tenantId: caller.principal.tenantId });
    const command: ReactorFormulaCommand = { type: 'UpdateReactorFormula', data: { id, input } };
    const { state } = await runFormulaCommand(this.runner, contextOf(caller), command, this.reactors);
    return toFormulaView(recordedFormula(state));
  }
}
