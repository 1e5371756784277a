// Builders for the use-case specs: callers holding given permissions and access rules, and what a use case appended to
// the embedded log. A spec reads given (earlier use cases), when (this one), then (its events, or its refusal).
import { randomUUID } from 'node:crypto';
import { DomainError, type AccessRule, type AccessTransform, type ApplicationType } from '@vault/domain';
import type { EventStore, RecordedEvent } from '../ports/event-store';
import type { Caller } from './use-case';

export const rule = (priority: number, container: string, transform: AccessTransform, ...permissions: string[]): AccessRule => ({
  priority,
  container,
  transform,
  permissions,
});

export interface CallerOptions {
  tenantId?: string;
  applicationId?: string;
  type?: ApplicationType;
  permissions?: Iterable<string>;
  rules?: AccessRule[];
  now?: Date;
}

/** An authenticated caller: a fresh tenant and application unless given. */
export const aCaller = (options: CallerOptions = {}): Caller => ({
  principal: {
    applicationId: options.applicationId ?? randomUUID(),
    tenantId: options.tenantId ?? randomUUID(),
    type: options.type ?? 'private',
    permissions: new Set(options.permissions ?? []),
    accessRules: options.rules ?? [],
  },
  now: options.now ?? new Date(),
  requestId: `req-${randomUUID()}`,
});

/** More than any one use case appends. */
const READ_LIMIT = 10_000;

/** When: runs the use case. Then: what it answered, and the events it appended to the log, in log order. */
export async function whenRun<T>(events: EventStore, act: () => Promise<T>): Promise<{ answer: T; recorded: RecordedEvent[] }> {
  const before = await events.headPosition();
  const answer = await act();
  return { answer, recorded: await events.readAll(before, READ_LIMIT) };
}

/** When: runs a use case that a guard refuses. Then: the DomainError, and what was appended meanwhile. */
export async function whenRefused(events: EventStore, act: () => Promise<unknown>): Promise<{ error: DomainError; recorded: RecordedEvent[] }> {
  const before = await events.headPosition();
  const error = await act().then(
    (answer) => {
      throw new Error(`The use case was not refused; it answered ${JSON.stringify(answer)}.`);
    },
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw error;
  return { error, recorded: await events.readAll(before, READ_LIMIT) };
}

/** The types of recorded events, in order: what most thens compare. */
export const typesOf = (recorded: readonly RecordedEvent[]): string[] => recorded.map(({ type }) => type);
