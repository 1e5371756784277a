// The operator's import of one official formula file (already parsed JSON): creates, updates, or leaves it as is.
import { importOfficialFormulaCommand, validateOfficialFormulaFile, type Actor, type CommandContext } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import { assertCodeCompiles, type FormulaCodeChecker } from '../ports/formula-code-checker';
import type { Clock } from '../ports/system';
import { VaultCommand, type UseCaseHandler } from '../shared/use-case';
import type { FormulaReactors } from './formula-reactors';
import { runFormulaCommand } from './run-formula-command';

export type ImportOutcome = { id: string; name: string; result: 'created' | 'updated' | 'unchanged' };

export class ImportOfficialFormulaCommand extends VaultCommand<ImportOutcome> {
  constructor(
    readonly file: unknown,
    readonly actor: Actor,
    readonly correlationId: string,
  ) {
    super();
  }
}

export class ImportOfficialFormulaHandler implements UseCaseHandler<ImportOfficialFormulaCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly checker: FormulaCodeChecker,
    private readonly clock: Clock,
    private readonly reactors: FormulaReactors,
  ) {}

  async execute({ file, actor, correlationId }: ImportOfficialFormulaCommand): Promise<ImportOutcome> {
    const parsed = validateOfficialFormulaFile(file);
    await assertCodeCompiles(this.checker, parsed.input.code, { tenantId: null });
    const ctx: CommandContext = { tenantId: null, actor, now: this.clock.now(), correlationId };
    const { events } = await runFormulaCommand(this.runner, ctx, importOfficialFormulaCommand(parsed), this.reactors);
    const result = events.length === 0 ? 'unchanged' : events[0].type === 'ReactorFormulaCreated' ? 'created' : 'updated';
    return { id: parsed.id, name: parsed.input.name, result };
  }
}
