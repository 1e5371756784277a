// DELETE /reactor-formulas/{id}: refused (409) while the formula has reactors; a private formula's delete answers once
// the key shredder has destroyed the key that sealed its code.
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import type { FormulaReactors } from './formula-reactors';
import { runFormulaCommand } from './run-formula-command';

export class DeleteReactorFormulaCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class DeleteReactorFormulaHandler implements UseCaseHandler<DeleteReactorFormulaCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly reactors: FormulaReactors,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ caller, id }: DeleteReactorFormulaCommand): Promise<void> {
    const { position } = await runFormulaCommand(this.runner, contextOf(caller), { type: 'DeleteReactorFormula', data: { id } }, this.reactors);
    await awaitShredding(this.shredding, position);
  }
}
