// Reactor formulas: the commands and queries, and their handlers, which are the use cases. Validation (shape, then
// code in the sandbox) comes first; the decider owns conflicts and visibility.
import {
  Actor,
  assertCodeCompiles,
  CommandContext,
  FormulaCodeChecker,
  formulaStream,
  importOfficialFormulaCommand,
  notFound,
  ReactorFormula,
  ReactorFormulaCommand,
  reactorFormulaDecider,
  validateFormulaInput,
  validateOfficialFormulaFile,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { FormulaListQuery, FormulaReadModel, Page } from '../ports/read-models';
import type { Clock, IdGenerator } from '../ports/system';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from './use-case';

/** A formula as the API shows it: modified_by/modified_at only once it has been modified. */
export type FormulaView = Omit<ReactorFormula, 'tenant_id' | 'modified_by' | 'modified_at'> & {
  modified_by?: string;
  modified_at?: string;
};

export type ImportOutcome = { id: string; name: string; result: 'created' | 'updated' | 'unchanged' };

export class CreateReactorFormulaCommand extends VaultCommand<FormulaView> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class UpdateReactorFormulaCommand extends VaultCommand<FormulaView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly body: unknown,
  ) {
    super();
  }
}

export class DeleteReactorFormulaCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

/** The operator's import of one official formula file (already parsed JSON): creates, updates, or leaves it as is. */
export class ImportOfficialFormulaCommand extends VaultCommand<ImportOutcome> {
  constructor(
    readonly file: unknown,
    readonly actor: Actor,
    readonly correlationId: string,
  ) {
    super();
  }
}

export class GetReactorFormulaQuery extends VaultQuery<FormulaView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class ListReactorFormulasQuery extends VaultQuery<Page<FormulaView>> {
  constructor(
    readonly caller: Caller,
    readonly query: FormulaListQuery,
  ) {
    super();
  }
}

const runFormulaCommand = async (runner: CommandRunner, ctx: CommandContext, command: ReactorFormulaCommand) =>
  runner.run(reactorFormulaDecider, formulaStream(command.data.id), command, ctx);

const recorded = (formula: ReactorFormula | null): ReactorFormula => {
  if (!formula) throw new Error('A reactor formula command left no formula behind.');
  return formula;
};

export class CreateReactorFormulaHandler implements UseCaseHandler<CreateReactorFormulaCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly checker: FormulaCodeChecker,
    private readonly ids: IdGenerator,
  ) {}

  async execute({ caller, body }: CreateReactorFormulaCommand): Promise<FormulaView> {
    const input = validateFormulaInput(body);
    await assertCodeCompiles(this.checker, input.code);
    const command: ReactorFormulaCommand = { type: 'CreateReactorFormula', data: { id: this.ids.newId(), input } };
    const { state } = await runFormulaCommand(this.runner, contextOf(caller), command);
    return toFormulaView(recorded(state));
  }
}

export class UpdateReactorFormulaHandler implements UseCaseHandler<UpdateReactorFormulaCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly checker: FormulaCodeChecker,
  ) {}

  async execute({ caller, id, body }: UpdateReactorFormulaCommand): Promise<FormulaView> {
    const input = validateFormulaInput(body);
    await assertCodeCompiles(this.checker, input.code);
    const { state } = await runFormulaCommand(this.runner, contextOf(caller), { type: 'UpdateReactorFormula', data: { id, input } });
    return toFormulaView(recorded(state));
  }
}

export class DeleteReactorFormulaHandler implements UseCaseHandler<DeleteReactorFormulaCommand> {
  constructor(private readonly runner: CommandRunner) {}

  async execute({ caller, id }: DeleteReactorFormulaCommand): Promise<void> {
    await runFormulaCommand(this.runner, contextOf(caller), { type: 'DeleteReactorFormula', data: { id } });
  }
}

export class ImportOfficialFormulaHandler implements UseCaseHandler<ImportOfficialFormulaCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly checker: FormulaCodeChecker,
    private readonly clock: Clock,
  ) {}

  async execute({ file, actor, correlationId }: ImportOfficialFormulaCommand): Promise<ImportOutcome> {
    const parsed = validateOfficialFormulaFile(file);
    await assertCodeCompiles(this.checker, parsed.input.code);
    const ctx: CommandContext = { tenantId: null, actor, now: this.clock.now(), correlationId };
    const { events } = await runFormulaCommand(this.runner, ctx, importOfficialFormulaCommand(parsed));
    const result = events.length === 0 ? 'unchanged' : events[0].type === 'ReactorFormulaCreated' ? 'created' : 'updated';
    return { id: parsed.id, name: parsed.input.name, result };
  }
}

export class GetReactorFormulaHandler implements UseCaseHandler<GetReactorFormulaQuery> {
  constructor(private readonly readModel: FormulaReadModel) {}

  async execute({ caller, id }: GetReactorFormulaQuery): Promise<FormulaView> {
    const doc = await this.readModel.get(caller.principal.tenantId, id);
    if (!doc) throw notFound('Reactor formula');
    return toFormulaView(doc);
  }
}

export class ListReactorFormulasHandler implements UseCaseHandler<ListReactorFormulasQuery> {
  constructor(private readonly readModel: FormulaReadModel) {}

  async execute({ caller, query }: ListReactorFormulasQuery): Promise<Page<FormulaView>> {
    const page = await this.readModel.list(caller.principal.tenantId, query);
    return { total: page.total, items: page.items.map(toFormulaView) };
  }
}

export function toFormulaView(formula: ReactorFormula): FormulaView {
  const { tenant_id: _tenant, modified_by, modified_at, ...rest } = formula;
  return { ...rest, ...(modified_by ? { modified_by } : {}), ...(modified_at ? { modified_at } : {}) };
}
