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
  OPERATOR_PERMISSIONS,
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

  /**
   * `callerPermissions`: what the caller holds (a principal's permissions, or OPERATOR_PERMISSIONS for the CLI and the
   * bootstrap); the domain lets it grant and touch only management permissions within them.
   */
  async create(
    ctx: CommandContext,
    callerPermissions: readonly string[],
    input: ApplicationInput,
    preset: { id?: string; key?: string } = {},
  ): Promise<ApplicationWithKey> {
    const id = preset.id ?? this.ids.newId();
    const key = preset.key ?? this.keys.generate(isApplicationType(input.type) ? input.type : 'private');
    const state = await this.execute(ctx, id, { type: 'CreateApplication', id, keyHash: this.keys.hash(key), input, callerPermissions });
    return { ...toView(state), key };
  }

  /**
   * The operator's creation of a tenant's first application under a fixed id, safe to repeat: when an interrupted
   * earlier attempt already created it (its tenant was never completed, so no one could use or change it), it gets `key`.
   */
  async createOrRekey(ctx: CommandContext, id: string, input: ApplicationInput, key: string): Promise<ApplicationWithKey> {
    const keyHash = this.keys.hash(key);
    const state = await this.execute(ctx, id, (current) =>
      current && !current.deleted
        ? { type: 'RegenerateApplicationKey', id, keyHash, callerPermissions: OPERATOR_PERMISSIONS }
        : { type: 'CreateApplication', id, keyHash, input, callerPermissions: OPERATOR_PERMISSIONS },
    );
    return { ...toView(state), key };
  }

  async update(ctx: CommandContext, callerPermissions: readonly string[], id: string, input: ApplicationInput): Promise<ApplicationView> {
    return toView(await this.execute(ctx, id, { type: 'UpdateApplication', id, input, callerPermissions }));
  }

  async regenerate(ctx: CommandContext, callerPermissions: readonly string[], id: string): Promise<ApplicationWithKey> {
    let key = '';
    // The key's prefix follows the type in the stream, read in the same attempt as the decision (never a stale read model).
    const state = await this.execute(ctx, id, (current) => {
      key = this.keys.generate(current?.type ?? 'private');
      return { type: 'RegenerateApplicationKey', id, keyHash: this.keys.hash(key), callerPermissions };
    });
    return { ...toView(state), key };
  }

  async delete(ctx: CommandContext, callerPermissions: readonly string[], id: string): Promise<void> {
    await this.execute(ctx, id, { type: 'DeleteApplication', id, callerPermissions });
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

  private async execute(
    ctx: CommandContext,
    id: string,
    command: ApplicationCommand | ((state: ApplicationState | null) => ApplicationCommand),
  ): Promise<ApplicationState> {
    const outcome = await this.runner.run<ApplicationState, ApplicationCommand, ApplicationEvent>(
      aggregate,
      applicationStream(id),
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
