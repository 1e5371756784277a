import type { Decider } from '../shared/decider';
import { DomainError, FieldErrorCollector } from '../shared/errors';
import type { CommandContext } from '../shared/events';
import { codePointLength } from '../shared/json-shape';
import type { TenantEvent } from './tenant.events';
import { evolveTenant } from './tenant.evolve';
import type { TenantState } from './tenant.state';

export type TenantCommand =
  | { type: 'CreateTenant'; id: string; name: string }
  | { type: 'RenameTenant'; name: string }
  | { type: 'DeleteTenant' };

export const MAX_TENANT_NAME_LENGTH = 200;

const validName = (raw: string): string => {
  const errors = new FieldErrorCollector();
  const name = raw.trim();
  // Characters as a user counts them (code points): 200 emoji are 400 UTF-16 units, and a valid name.
  if (name.length < 1 || name.length > 2 * MAX_TENANT_NAME_LENGTH || codePointLength(name) > MAX_TENANT_NAME_LENGTH) {
    errors.add('name', `name must be 1 to ${MAX_TENANT_NAME_LENGTH} characters long`);
  }
  errors.throwIfAny();
  return name;
};

export function decideTenant(command: TenantCommand, state: TenantState | null, ctx: CommandContext): TenantEvent[] {
  if (command.type === 'CreateTenant') {
    const name = validName(command.name);
    // The same creation again (the bootstrap's fixed id, retried after a crash or by two start-ups at once) is done already.
    if (state) {
      if (state.id === command.id && state.name === name && !state.deleted) return [];
      throw new DomainError('conflict', 'A tenant with this id already exists.');
    }
    return [{ type: 'TenantCreated', data: { id: command.id, name, created_by: ctx.actor.id, created_at: ctx.now.toISOString() } }];
  }
  if (!state || state.deleted) throw new DomainError('not_found', 'No such tenant.');
  if (command.type === 'RenameTenant') {
    const name = validName(command.name);
    return [{ type: 'TenantRenamed', data: { id: state.id, name, modified_by: ctx.actor.id, modified_at: ctx.now.toISOString() } }];
  }
  return [{ type: 'TenantDeleted', data: { id: state.id, deleted_by: ctx.actor.id, deleted_at: ctx.now.toISOString() } }];
}

/** decide, evolve and the empty state together, as the command handlers and the given/when/then specs use them. */
export const tenantDecider: Decider<TenantCommand, TenantState | null, TenantEvent> = {
  decide: decideTenant,
  evolve: evolveTenant,
  initialState: () => null,
};
