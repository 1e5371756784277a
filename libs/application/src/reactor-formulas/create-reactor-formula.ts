// POST /reactor-formulas: the shape validated, then the code compiled in the sandbox, then recorded.
import { validateFormulaInput, type ReactorFormulaCommand } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import { assertCodeCompiles, type FormulaCodeChecker } from '../ports/formula-code-checker';
import type { IdGenerator } from '../ports/system';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toFormulaView, type FormulaView } from './formula-view';
import { recordedFormula, runFormulaCommand } from './run-formula-command';

export class CreateReactorFormulaCommand extends VaultCommand<FormulaView> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class CreateReactorFormulaHandler implements UseCaseHandler<CreateReactorFormulaCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly checker: FormulaCodeChecker,
    private readonly ids: IdGenerator,
  ) {}

  async execute({ caller, body }: CreateReactorFormulaCommand): Promise<FormulaView> {
    const input = validateFormulaInput(body);
    await assertCodeCompiles(this.checker, input.code, { tenantId: caller.principal.tenantId });
    const command: ReactorFormulaCommand = { type: 'CreateReactorFormula', data: { id: this.ids.newId(), input } };
    const { state } = await runFormulaCommand(this.runner, contextOf(caller), command);
    return toFormulaView(recordedFormula(state));
  }
}
