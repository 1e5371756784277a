// Reactor formula use cases: validation (shape, then code in the sandbox), decisions, and the visibility of reads.
import {
  assertCodeCompiles,
  CommandContext,
  decideReactorFormula,
  evolveReactorFormula,
  FormulaCodeChecker,
  formulaStream,
  importOfficialFormulaCommand,
  notFound,
  ReactorFormula,
  ReactorFormulaCommand,
  ReactorFormulaEvent,
  ReactorFormulaState,
  validateFormulaInput,
  validateOfficialFormulaFile,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { FormulaListQuery, FormulaReadModel, Page } from '../ports/read-models';
import type { IdGenerator } from '../ports/system';

/** A formula as the API shows it: modified_by/modified_at only once it has been modified. */
export type FormulaView = Omit<ReactorFormula, 'tenant_id' | 'modified_by' | 'modified_at'> & {
  modified_by?: string;
  modified_at?: string;
};

export type ImportOutcome = { id: string; name: string; result: 'created' | 'updated' | 'unchanged' };

const aggregate = {
  evolve: (state: ReactorFormulaState, event: ReactorFormulaEvent) => evolveReactorFormula(state, event),
  decide: decideReactorFormula,
};

export class FormulasService {
  constructor(
    private readonly runner: CommandRunner,
    private readonly readModel: FormulaReadModel,
    private readonly checker: FormulaCodeChecker,
    private readonly ids: IdGenerator,
  ) {}

  async create(ctx: CommandContext, body: unknown): Promise<FormulaView> {
    const input = validateFormulaInput(body);
    await assertCodeCompiles(this.checker, input.code);
    const id = this.ids.newId();
    return toFormulaView(await this.execute(ctx, { type: 'CreateReactorFormula', data: { id, input } }));
  }

  async update(ctx: CommandContext, id: string, body: unknown): Promise<FormulaView> {
    const input = validateFormulaInput(body);
    await assertCodeCompiles(this.checker, input.code);
    return toFormulaView(await this.execute(ctx, { type: 'UpdateReactorFormula', data: { id, input } }));
  }

  async delete(ctx: CommandContext, id: string): Promise<void> {
    await this.execute(ctx, { type: 'DeleteReactorFormula', data: { id } });
  }

  async get(tenantId: string, id: string): Promise<FormulaView> {
    const doc = await this.readModel.get(tenantId, id);
    if (!doc) throw notFound('Reactor formula');
    return toFormulaView(doc);
  }

  async list(tenantId: string, query: FormulaListQuery): Promise<Page<FormulaView>> {
    const page = await this.readModel.list(tenantId, query);
    return { total: page.total, items: page.items.map(toFormulaView) };
  }

  /** The operator's import of one official formula file (already parsed JSON): creates, updates, or leaves it as is. */
  async importOfficial(ctx: CommandContext, file: unknown): Promise<ImportOutcome> {
    const parsed = validateOfficialFormulaFile(file);
    await assertCodeCompiles(this.checker, parsed.input.code);
    const outcome = await this.runner.run<ReactorFormula, ReactorFormulaCommand, ReactorFormulaEvent>(
      aggregate,
      formulaStream(parsed.id),
      importOfficialFormulaCommand(parsed),
      ctx,
    );
    const result = outcome.events.length === 0 ? 'unchanged' : outcome.events[0].type === 'ReactorFormulaCreated' ? 'created' : 'updated';
    return { id: parsed.id, name: parsed.input.name, result };
  }

  private async execute(ctx: CommandContext, command: ReactorFormulaCommand): Promise<ReactorFormula> {
    const outcome = await this.runner.run<ReactorFormula, ReactorFormulaCommand, ReactorFormulaEvent>(
      aggregate,
      formulaStream(command.data.id),
      command,
      ctx,
    );
    return outcome.state!;
  }
}

export function toFormulaView(formula: ReactorFormula): FormulaView {
  const { tenant_id: _tenant, modified_by, modified_at, ...rest } = formula;
  return { ...rest, ...(modified_by ? { modified_by } : {}), ...(modified_at ? { modified_at } : {}) };
}
