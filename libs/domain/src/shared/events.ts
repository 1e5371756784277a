// Events are plain data: { type, data }. Who did it, for which tenant and when travels as metadata.

export type ActorType = 'application' | 'operator' | 'system';

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
