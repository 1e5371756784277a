// Events are plain data: { type, data }. Who did it, for which tenant and when travels as metadata.

export type ActorType = 'application' | 'operator' | 'system' | 'anonymous';

export interface Actor {
  type: ActorType;
  /** Application id for applications; a fixed name (`cli`, `bootstrap`) for operators and the system. */
  id: string;
}

export interface EventMetadata {
  tenant_id: string | null;
  actor: Actor;
  /** ISO 8601, from the command's clock. */
  timestamp: string;
  correlation_id: string;
}

export interface DomainEvent<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
}

/** What every command carries besides its own data: the clock, the actor and the tenant come from here, never from globals. */
export interface CommandContext {
  tenantId: string | null;
  actor: Actor;
  now: Date;
  correlationId: string;
}

/**
 * The type strings of an event union, listed through a record with one key per member: leaving a type out, or adding
 * one that is not in the union, fails to compile, so projections built on the list cannot silently skip an event.
 */
export const eventTypesOf = <T extends string>(types: Record<T, true>): readonly T[] => Object.keys(types) as T[];
