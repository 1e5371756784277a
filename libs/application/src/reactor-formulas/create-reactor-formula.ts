// Reactor formulas: the commands and queries, and their handlers, which are the use cases. Validation (shape, then
// code in the sandbox) comes first; the decider owns conflicts and visibility. An update, delete or import that would
// break reactors of the formula is a 409 naming them (API.md "Reactors").
import { Actor, assertFormulaChangeBreaksNoReactor, CommandContext, FormulaChange, formulaStream, importOfficialFormulaCommand, notFound, ReactorFormula, ReactorFormulaCommand, reactorFormulaDecider, ReactorFormulaEvent, ReactorFormulaState, validateFormulaInput, validateOfficialFormulaFile } from '@vault/domain';
import { assertCodeCompiles, type FormulaCodeChecker } from '../ports/formula-code-checker';
import type { CommandRunner } from '../commands/command-runner';
import type { FormulaListQuery, FormulaReadModel, Page } from '../ports/read-models';
import type { Clock, IdGenerator } from '../ports/system';
import type { FormulaReactors } from '../reactors/create-reactor';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from '../shared/use-case';

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

const runFormulaCommand = async (
  runner: CommandRunner,
  ctx: CommandContext,
  command: ReactorFormulaCommand,
  reactors?: FormulaReactors,
) => runner.run(reactorFormulaDecider, formulaStream(command.data.id), reactors ? checkedAgainst(reactors, command, ctx) : command, ctx);

/**
 * The command, built in the runner's state callback so that every attempt checks it against the formula's reactors as
 * they are then. The decider's own rules answer first: a caller who may not change this formula (another tenant's: 404;
 * an official one: 403) learns nothing of its reactors. Then a change that would break one is the 409 naming them.
 */
const checkedAgainst =
  (reactors: FormulaReactors, command: ReactorFormulaCommand, ctx: CommandContext) =>
  async (state: ReactorFormulaState): Promise<ReactorFormulaCommand> => {
    const change = formulaChangeOf(reactorFormulaDecider.decide(command, state, ctx));
    if (change !== null) assertFormulaChangeBreaksNoReactor(change, await reactors.of(command.data.id));
    return command;
  };

/** What the decided events change for the formula's reactors: nothing for a create (a new formula has none) or a no-op. */
const formulaChangeOf = (events: ReactorFormulaEvent[]): FormulaChange | null => {
  const last = events[events.length - 1];
  if (last === undefined || last.type === 'ReactorFormulaCreated') return null;
  return last.type === 'ReactorFormulaDeleted' ? 'deleted' : last.data.configuration;
};

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
    await assertCodeCompiles(this.checker, input.code, { tenantId: caller.principal.tenantId });
    const command: ReactorFormulaCommand = { type: 'CreateReactorFormula', data: { id: this.ids.newId(), input } };
    const { state } = await runFormulaCommand(this.runner, contextOf(caller), command);
    return toFormulaView(recorded(state));
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
    return toFormulaView(recorded(state));
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
    // The key shredder destroys the key that sealed a private formula's code; the delete answers once it has.
    await awaitShredding(this.shredding, position);
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
