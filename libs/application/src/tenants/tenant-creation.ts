// The steps of a tenant creation the operator's `tenant create` and the start-up bootstrap share: a tenant plus its
// first management application.
//
// That is two streams, and no event store of ours appends to two atomically (EventStoreDB has no multi-stream
// transaction). So the order makes an interruption harmless instead: the management application first, TenantCreated
// last. Until TenantCreated exists, the application's key authenticates nobody (the Authenticator refuses keys of
// unknown tenants), so a crash in between leaves an inert application and no tenant. The operator's retry creates a
// new tenant; the bootstrap uses fixed ids, so the next start-up completes the very creation it interrupted.
import { MANAGEMENT_PERMISSIONS, tenantDecider, tenantStream, type ApplicationInput, type CommandContext, type TenantCommand } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';

export interface CreatedTenant {
  tenant_id: string;
  management_key: string;
}

export type CreateTenant = Extract<TenantCommand, { type: 'CreateTenant' }>;

export const managementApplication = (): ApplicationInput => ({ name: 'Management', type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] });

/** Decides on a fresh tenant before anything is written, so a bad name leaves not even an inert application behind. */
export const checkedTenant = <C extends TenantCommand>(command: C, ctx: CommandContext): C => {
  tenantDecider.decide(command, tenantDecider.initialState(), ctx);
  return command;
};

/** TenantCreated: the last write, the one that makes the management key usable. False when it was there already. */
export const completeTenant = async (runner: CommandRunner, command: CreateTenant, ctx: CommandContext): Promise<boolean> => {
  const { events } = await runner.run(tenantDecider, tenantStream(command.id), command, ctx);
  return events.length > 0;
};
