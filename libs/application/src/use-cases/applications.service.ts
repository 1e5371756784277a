// Application (API client) use cases. Keys are returned once, here, and only their hash is recorded.
import {
  ApplicationCommand,
  ApplicationEvent,
  ApplicationInput,
  applicationStream,
  ApplicationState,
  CommandContext,
  decideApplication,
  evolveApplication,
  isApplicationType,
  notFound,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { ApplicationDocument, ApplicationReadModel, Page, PageRequest } from '../ports/read-models';
import type { ApiKeys, IdGenerator } from '../ports/system';

export type ApplicationView = Omit<ApplicationDocument, 'key_hash' | 'modified_by' | 'modified_at'> & {
  modified_by?: string;
  modified_at?: string;
};
export type ApplicationWithKey = ApplicationView & { key: string };

const aggregate = { evolve: evolveApplication, decide: decideApplication };

export class ApplicationsService {
  constructor(
    private readonly runner: CommandRunner,
    private readonly readModel: ApplicationReadModel,
    private readonly ids: IdGenerator,
    private readonly keys: ApiKeys,
  ) {}

  async create(ctx: CommandContext, input: ApplicationInput, presetKey?: string): Promise<ApplicationWithKey> {
    const id = this.ids.newId();
    const key = presetKey ?? this.keys.generate(isApplicationType(input.type) ? input.type : 'private');
    const state = await this.execute(ctx, { type: 'CreateApplication', id, keyHash: this.keys.hash(key), input });
    return { ...toView(state), key };
  }

  async update(ctx: CommandContext, id: string, input: ApplicationInput): Promise<ApplicationView> {
    return toView(await this.execute(ctx, { type: 'UpdateApplication', id, input }));
  }

  async regenerate(ctx: CommandContext, id: string): Promise<ApplicationWithKey> {
    const current = await this.get(ctx.tenantId!, id);
    const key = this.keys.generate(current.type);
    const state = await this.execute(ctx, { type: 'RegenerateApplicationKey', id, keyHash: this.keys.hash(key) });
    return { ...toView(state), key };
  }

  async delete(ctx: CommandContext, id: string): Promise<void> {
    await this.execute(ctx, { type: 'DeleteApplication', id });
  }

  async get(tenantId: string, id: string): Promise<ApplicationView> {
    const doc = await this.readModel.get(tenantId, id);
    if (!doc) throw notFound('Application');
    return toView(doc);
  }

  async list(tenantId: string, page: PageRequest): Promise<Page<ApplicationView>> {
    const result = await this.readModel.list(tenantId, page);
    return { total: result.total, items: result.items.map(toView) };
  }

  private async execute(ctx: CommandContext, command: ApplicationCommand): Promise<ApplicationState> {
    const outcome = await this.runner.run<ApplicationState, ApplicationCommand, ApplicationEvent>(
      aggregate,
      applicationStream(command.id),
      command,
      ctx,
    );
    return outcome.state!;
  }
}

export function toView(app: ApplicationDocument | ApplicationState): ApplicationView {
  const view: ApplicationView = {
    id: app.id,
    tenant_id: app.tenant_id,
    name: app.name,
    type: app.type,
    permissions: app.permissions,
    rules: app.rules,
    expires_at: app.expires_at,
    created_by: app.created_by,
    created_at: app.created_at,
  };
  if (app.modified_by) view.modified_by = app.modified_by;
  if (app.modified_at) view.modified_at = app.modified_at;
  return view;
}
