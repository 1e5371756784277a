// Tenant creation (operator CLI and development bootstrap): a tenant plus its first management application.
//
// That is two streams, and no event store of ours appends to two atomically (EventStoreDB has no multi-stream
// transaction). So the order makes an interruption harmless instead: the management application first, TenantCreated
// last. Until TenantCreated exists, the application's key authenticates nobody (the Authenticator refuses keys of
// unknown tenants), so a crash in between leaves an inert application and no tenant. The operator's retry creates a
// new tenant; the bootstrap uses fixed ids, so the next start-up completes the very creation it interrupted.
import { Actor, ApplicationInput, CommandContext, MANAGEMENT_PERMISSIONS, notFound, OPERATOR_PERMISSIONS, TenantCommand, tenantDecider, tenantStream } from '@vault/domain';
import type { TenantKeys } from '../ports/token-crypto';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { TenantDocument, TenantReadModel } from '../ports/read-models';
import type { ApiKeys, Clock, IdGenerator } from '../ports/system';
import { runApplicationCommand } from '../applications/create-application';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from '../shared/use-case';

export interface CreatedTenant {
  tenant_id: string;
  management_key: string;
}

/**
 * The bootstrap's tenant and management application. Fixed rather than derived from VAULT_BOOTSTRAP_KEY: ids are shown
 * to callers, and one derived from the key would let anyone who sees it test guesses of a weak key offline.
 */
export const BOOTSTRAP_TENANT_ID = 'b0075700-0000-4000-8000-000000000001';
export const BOOTSTRAP_APPLICATION_ID = 'b0075700-0000-4000-8000-000000000002';

/** The operator's `tenant create`: a new tenant and its management key. */
export class CreateTenantCommand extends VaultCommand<CreatedTenant> {
  constructor(
    readonly name: string,
    readonly actor: Actor,
    readonly correlationId: string,
  ) {
    super();
  }
}

/**
 * VAULT_BOOTSTRAP_KEY: creates tenant `default`, with a management application whose key is `key`, when no tenant
 * exists yet; completes it when an earlier start-up was interrupted half-way. Answers null when there was nothing to do.
 */
export class BootstrapTenantCommand extends VaultCommand<CreatedTenant | null> {
  constructor(
    readonly key: string,
    readonly correlationId: string,
  ) {
    super();
  }
}

const managementApplication = (): ApplicationInput => ({ name: 'Management', type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] });

export class CreateTenantHandler implements UseCaseHandler<CreateTenantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly ids: IdGenerator,
    private readonly keys: ApiKeys,
    private readonly clock: Clock,
  ) {}

  async execute({ name, actor, correlationId }: CreateTenantCommand): Promise<CreatedTenant> {
    const tenantId = this.ids.newId();
    const ctx: CommandContext = { tenantId, actor, now: this.clock.now(), correlationId };
    const command = checked({ type: 'CreateTenant', id: tenantId, name }, ctx);
    const applicationId = this.ids.newId();
    const key = this.keys.generate('management');
    await runApplicationCommand(this.runner, ctx, applicationId, {
      type: 'CreateApplication',
      id: applicationId,
      keyHash: this.keys.hash(key),
      input: managementApplication(),
      callerPermissions: OPERATOR_PERMISSIONS,
    });
    await complete(this.runner, command, ctx);
    return { tenant_id: tenantId, management_key: key };
  }
}

export class BootstrapTenantHandler implements UseCaseHandler<BootstrapTenantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly events: EventStore,
    private readonly tenants: TenantReadModel,
    private readonly keys: ApiKeys,
    private readonly clock: Clock,
  ) {}

  async execute({ key, correlationId }: BootstrapTenantCommand): Promise<CreatedTenant | null> {
    if (key.length < 32) throw new Error('VAULT_BOOTSTRAP_KEY must be at least 32 characters long');
    // Done before, asked of the log: a read model that has not caught up yet must not make it run twice.
    if ((await this.events.readStream(tenantStream(BOOTSTRAP_TENANT_ID))).length > 0) return null;
    if ((await this.tenants.count()) > 0) return null;
    const ctx: CommandContext = { tenantId: BOOTSTRAP_TENANT_ID, actor: { type: 'system', id: 'bootstrap' }, now: this.clock.now(), correlationId };
    const command = checked({ type: 'CreateTenant', id: BOOTSTRAP_TENANT_ID, name: 'default' }, ctx);
    // An interrupted attempt may have left the application (inert: its tenant does not exist); it then takes this key.
    const keyHash = this.keys.hash(key);
    const id = BOOTSTRAP_APPLICATION_ID;
    await runApplicationCommand(this.runner, ctx, id, (current) =>
      current && !current.deleted
        ? { type: 'RegenerateApplicationKey', id, keyHash, callerPermissions: OPERATOR_PERMISSIONS }
        : { type: 'CreateApplication', id, keyHash, input: managementApplication(), callerPermissions: OPERATOR_PERMISSIONS },
    );
    // Another start-up on the same log may have completed it meanwhile: then this one created nothing.
    return (await complete(this.runner, command, ctx)) ? { tenant_id: BOOTSTRAP_TENANT_ID, management_key: key } : null;
  }
}

/** Decides on a fresh tenant before anything is written, so a bad name leaves not even an inert application behind. */
const checked = <C extends TenantCommand>(command: C, ctx: CommandContext): C => {
  tenantDecider.decide(command, tenantDecider.initialState(), ctx);
  return command;
};

/** TenantCreated: the last write, the one that makes the management key usable. False when it was there already. */
const complete = async (runner: CommandRunner, command: Extract<TenantCommand, { type: 'CreateTenant' }>, ctx: CommandContext): Promise<boolean> => {
  const { events } = await runner.run(tenantDecider, tenantStream(command.id), command, ctx);
  return events.length > 0;
};

/** `GET /tenants/self`: API.md's tenant object, the read model's document without its tombstone flag. */
export type TenantView = Omit<TenantDocument, 'deleted'>;

const tenantView = ({ id, name, created_by, created_at, modified_by, modified_at }: TenantDocument): TenantView => ({
  id,
  name,
  created_by,
  created_at,
  ...(modified_by === undefined ? {} : { modified_by, modified_at }),
});

export class GetOwnTenantQuery extends VaultQuery<TenantView> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class RenameOwnTenantCommand extends VaultCommand<TenantView> {
  constructor(
    readonly caller: Caller,
    readonly name: string,
  ) {
    super();
  }
}

/**
 * Deletes a tenant with everything in it: `DELETE /tenants/self` (the caller's own tenant, `actor` its application) or
 * the operator's `tenant delete --id`.
 */
export class DeleteTenantCommand extends VaultCommand<void> {
  constructor(
    readonly tenantId: string,
    readonly actor: Actor,
    readonly correlationId: string,
  ) {
    super();
  }

  static ownTenant(caller: Caller): DeleteTenantCommand {
    const ctx = contextOf(caller);
    return new DeleteTenantCommand(caller.principal.tenantId, ctx.actor, ctx.correlationId);
  }
}

export class GetOwnTenantHandler implements UseCaseHandler<GetOwnTenantQuery> {
  constructor(private readonly tenants: TenantReadModel) {}

  async execute({ caller }: GetOwnTenantQuery): Promise<TenantView> {
    const tenant = await this.tenants.get(caller.principal.tenantId);
    if (!tenant || tenant.deleted) throw notFound('Tenant');
    return tenantView(tenant);
  }
}

export class RenameOwnTenantHandler implements UseCaseHandler<RenameOwnTenantCommand> {
  constructor(private readonly runner: CommandRunner) {}

  async execute({ caller, name }: RenameOwnTenantCommand): Promise<TenantView> {
    const ctx = contextOf(caller);
    const { state } = await this.runner.run(tenantDecider, tenantStream(caller.principal.tenantId), { type: 'RenameTenant', name }, ctx);
    if (!state || state.deleted) throw notFound('Tenant');
    return tenantView(state);
  }
}

/**
 * TenantDeleted first, then the tenant key is destroyed, before the answer. A crash in between leaves the event, and
 * the key shredder, which follows TenantDeleted from its own checkpoint, destroys the key when it catches up; until
 * then the tenant's tombstone in the read model refuses its keys. The read models drop the tenant's documents as they
 * apply the event, which the runner waits for.
 */
export class DeleteTenantHandler implements UseCaseHandler<DeleteTenantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly tenantKeys: TenantKeys,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, actor, correlationId }: DeleteTenantCommand): Promise<void> {
    const ctx: CommandContext = { tenantId, actor, now: this.clock.now(), correlationId };
    await this.runner.run(tenantDecider, tenantStream(tenantId), { type: 'DeleteTenant' }, ctx);
    this.tenantKeys.destroyTenantKey(tenantId);
  }
}
