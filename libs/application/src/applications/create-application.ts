// Applications (API clients): the commands and queries, and their handlers, which are the use cases. Keys are returned
// once, here, and only their hash is recorded.
import {
  ApplicationCommand,
  applicationDecider,
  ApplicationInput,
  applicationStream,
  ApplicationState,
  CommandContext,
  isApplicationType,
  notFound,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { ApplicationDocument, ApplicationReadModel, Page, PageRequest } from '../ports/read-models';
import type { ApiKeys, IdGenerator } from '../ports/system';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from '../shared/use-case';

export type ApplicationView = Omit<ApplicationDocument, 'key_hash' | 'modified_by' | 'modified_at'> & {
  modified_by?: string;
  modified_at?: string;
};
export type ApplicationWithKey = ApplicationView & { key: string };

export class CreateApplicationCommand extends VaultCommand<ApplicationWithKey> {
  constructor(
    readonly caller: Caller,
    readonly input: ApplicationInput,
  ) {
    super();
  }
}

export class UpdateApplicationCommand extends VaultCommand<ApplicationView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly input: ApplicationInput,
  ) {
    super();
  }
}

export class RegenerateApplicationKeyCommand extends VaultCommand<ApplicationWithKey> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class DeleteApplicationCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class GetApplicationQuery extends VaultQuery<ApplicationView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class ListApplicationsQuery extends VaultQuery<Page<ApplicationView>> {
  constructor(
    readonly caller: Caller,
    readonly page: PageRequest,
  ) {
    super();
  }
}

/**
 * What the caller holds, carried by every command: the domain lets it grant and touch only management permissions
 * within them (the operator's commands carry OPERATOR_PERMISSIONS).
 */
const held = (caller: Caller): readonly string[] => [...caller.principal.permissions];

/** Runs one application command on its stream and answers the state after it. */
export const runApplicationCommand = async (
  runner: CommandRunner,
  ctx: CommandContext,
  id: string,
  command: ApplicationCommand | ((state: ApplicationState | null) => ApplicationCommand),
): Promise<ApplicationState> => {
  const { state } = await runner.run(applicationDecider, applicationStream(id), command, ctx);
  if (!state) throw new Error('An application command left no application behind.');
  return state;
};

export class CreateApplicationHandler implements UseCaseHandler<CreateApplicationCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly ids: IdGenerator,
    private readonly keys: ApiKeys,
  ) {}

  async execute({ caller, input }: CreateApplicationCommand): Promise<ApplicationWithKey> {
    const id = this.ids.newId();
    const key = this.keys.generate(isApplicationType(input.type) ? input.type : 'private');
    const state = await runApplicationCommand(this.runner, contextOf(caller), id, {
      type: 'CreateApplication',
      id,
      keyHash: this.keys.hash(key),
      input,
      callerPermissions: held(caller),
    });
    return { ...toApplicationView(state), key };
  }
}

export class UpdateApplicationHandler implements UseCaseHandler<UpdateApplicationCommand> {
  constructor(private readonly runner: CommandRunner) {}

  async execute({ caller, id, input }: UpdateApplicationCommand): Promise<ApplicationView> {
    const command: ApplicationCommand = { type: 'UpdateApplication', id, input, callerPermissions: held(caller) };
    return toApplicationView(await runApplicationCommand(this.runner, contextOf(caller), id, command));
  }
}

export class RegenerateApplicationKeyHandler implements UseCaseHandler<RegenerateApplicationKeyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly keys: ApiKeys,
  ) {}

  async execute({ caller, id }: RegenerateApplicationKeyCommand): Promise<ApplicationWithKey> {
    let key = '';
    // The key's prefix follows the type in the stream, read in the same attempt as the decision (never a stale read model).
    const state = await runApplicationCommand(this.runner, contextOf(caller), id, (current) => {
      key = this.keys.generate(current?.type ?? 'private');
      return { type: 'RegenerateApplicationKey', id, keyHash: this.keys.hash(key), callerPermissions: held(caller) };
    });
    return { ...toApplicationView(state), key };
  }
}

export class DeleteApplicationHandler implements UseCaseHandler<DeleteApplicationCommand> {
  constructor(private readonly runner: CommandRunner) {}

  async execute({ caller, id }: DeleteApplicationCommand): Promise<void> {
    await runApplicationCommand(this.runner, contextOf(caller), id, { type: 'DeleteApplication', id, callerPermissions: held(caller) });
  }
}

export class GetApplicationHandler implements UseCaseHandler<GetApplicationQuery> {
  constructor(private readonly readModel: ApplicationReadModel) {}

  async execute({ caller, id }: GetApplicationQuery): Promise<ApplicationView> {
    const doc = await this.readModel.get(caller.principal.tenantId, id);
    if (!doc) throw notFound('Application');
    return toApplicationView(doc);
  }
}

export class ListApplicationsHandler implements UseCaseHandler<ListApplicationsQuery> {
  constructor(private readonly readModel: ApplicationReadModel) {}

  async execute({ caller, page }: ListApplicationsQuery): Promise<Page<ApplicationView>> {
    const result = await this.readModel.list(caller.principal.tenantId, page);
    return { total: result.total, items: result.items.map(toApplicationView) };
  }
}

export function toApplicationView(app: ApplicationDocument | ApplicationState): ApplicationView {
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
