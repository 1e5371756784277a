// A tenant: the boundary of every resource. Created by the operator (CLI) or the development bootstrap; renamed and
// deleted by its own management applications (`/tenants/self`) or the operator (`tenant delete`).
import { eventTypesOf, type CommandContext, type DomainEvent } from '../shared/events';
import type { Decider } from '../shared/decider';
import { DomainError, FieldErrorCollector } from '../shared/errors';
import { codePointLength } from '../shared/json-shape';

export const TENANT_STREAM_PREFIX = 'tenant-';
export const tenantStream = (id: string) => `${TENANT_STREAM_PREFIX}${id}`;

export type TenantCreated = DomainEvent<'TenantCreated', { id: string; name: string; created_by: string; created_at: string }>;
export type TenantRenamed = DomainEvent<'TenantRenamed', { id: string; name: string; modified_by: string; modified_at: string }>;
/** The tenant and everything in it are gone: its key is destroyed, so every token's data is shredded with it. */
export type TenantDeleted = DomainEvent<'TenantDeleted', { id: string; deleted_by: string; deleted_at: string }>;
export type TenantEvent = TenantCreated | TenantRenamed | TenantDeleted;

export const TENANT_EVENT_TYPES = eventTypesOf<TenantEvent['type']>({ TenantCreated: true, TenantRenamed: true, TenantDeleted: true });

export const isTenantEvent = (event: DomainEvent): event is TenantEvent =>
  (TENANT_EVENT_TYPES as readonly string[]).includes(event.type);

export interface TenantState {
  id: string;
  name: string;
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
  /** Set once the tenant is deleted: a deleted tenant stays deleted (its id is never reused). */
  deleted?: true;
}

export type TenantCommand =
  | { type: 'CreateTenant'; id: string; name: string }
  | { type: 'RenameTenant'; name: string }
  | { type: 'DeleteTenant' };

export function evolveTenant(state: TenantState | null, event: TenantEvent): TenantState | null {
  switch (event.type) {
    case 'TenantCreated':
      return { ...event.data };
    case 'TenantRenamed':
      return state && { ...state, name: event.data.name, modified_by: event.data.modified_by, modified_at: event.data.modified_at };
    case 'TenantDeleted':
      return state && { ...state, deleted: true };
  }
}

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
