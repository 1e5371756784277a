// A tenant: the boundary of every resource. Created by the operator (CLI) or the development bootstrap.
import { eventTypesOf, type CommandContext, type DomainEvent } from '../shared/events';
import type { Decider } from '../shared/decider';
import { DomainError, FieldErrorCollector } from '../shared/errors';

export const tenantStream = (id: string) => `tenant-${id}`;

export type TenantCreated = DomainEvent<'TenantCreated', { id: string; name: string; created_by: string; created_at: string }>;
export type TenantEvent = TenantCreated;

export const TENANT_EVENT_TYPES = eventTypesOf<TenantEvent['type']>({ TenantCreated: true });

export interface TenantState {
  id: string;
  name: string;
  created_by: string;
  created_at: string;
}

export type TenantCommand = { type: 'CreateTenant'; id: string; name: string };

export function evolveTenant(_state: TenantState | null, event: TenantEvent): TenantState | null {
  switch (event.type) {
    case 'TenantCreated':
      return { ...event.data };
  }
}

export function decideTenant(command: TenantCommand, state: TenantState | null, ctx: CommandContext): TenantEvent[] {
  const errors = new FieldErrorCollector();
  const name = command.name.trim();
  if (name.length < 1 || name.length > 200) errors.add('name', 'name must be 1 to 200 characters long');
  errors.throwIfAny();
  // The same creation again (the bootstrap's fixed id, retried after a crash or by two start-ups at once) is done already.
  if (state) {
    if (state.id === command.id && state.name === name) return [];
    throw new DomainError('conflict', 'A tenant with this id already exists.');
  }
  return [
    {
      type: 'TenantCreated',
      data: { id: command.id, name, created_by: ctx.actor.id, created_at: ctx.now.toISOString() },
    },
  ];
}

/** decide, evolve and the empty state together, as the command handlers and the given/when/then specs use them. */
export const tenantDecider: Decider<TenantCommand, TenantState | null, TenantEvent> = {
  decide: decideTenant,
  evolve: evolveTenant,
  initialState: () => null,
};
