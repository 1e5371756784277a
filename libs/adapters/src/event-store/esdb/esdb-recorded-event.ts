// A read or delivered EventStoreDB event as the port's RecordedEvent, or null for what the vault must not see.
import type { AllStreamResolvedEvent, ResolvedEvent } from '@eventstore/db-client';
import type { EventMetadata } from '@vault/domain';
import type { RecordedEvent } from '@vault/application';
import { positionOf } from './esdb-position';

export const hasPrefix = (streamId: string, prefixes: readonly string[]): boolean =>
  prefixes.some((prefix) => streamId.startsWith(prefix));

/** A domain event of one of `prefixes`' streams: not an unresolved link, not a `$`-typed system record. */
export const isVaultEvent = (resolved: ResolvedEvent | AllStreamResolvedEvent, prefixes: readonly string[]): boolean =>
  !!resolved.event && !resolved.event.type.startsWith('$') && hasPrefix(resolved.event.streamId, prefixes);

/**
 * `prefixes` limits the result to the vault's streams (for `$all`); stream reads pass none. Unresolved links and
 * `$`-typed system records (`$>`, `$metadata`, tombstones) are never domain events.
 */
export const toRecordedEvent = (
  resolved: ResolvedEvent | AllStreamResolvedEvent,
  prefixes?: readonly string[],
): RecordedEvent | null => {
  const event = resolved.event;
  if (!event || event.type.startsWith('$')) return null;
  if (prefixes && !hasPrefix(event.streamId, prefixes)) return null;
  // The vault only ever appends JSON; a binary event in a vault stream was written by something else.
  if (!event.isJson) throw new Error(`Event ${event.id} in ${event.streamId} is not JSON`);
  return {
    streamId: event.streamId,
    revision: event.revision,
    position: positionOf(resolved),
    type: event.type,
    data: event.data,
    metadata: event.metadata as unknown as EventMetadata,
  };
};
