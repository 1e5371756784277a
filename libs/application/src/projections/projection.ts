// A projection is a pure evolve(document, event) → document | null over one collection, keyed by the event's data.id.
import type { RecordedEvent } from '../ports/event-store';

export interface Projection<TDoc = Record<string, unknown>> {
  collection: string;
  eventTypes: readonly string[];
  evolve(doc: TDoc | null, event: RecordedEvent): TDoc | null;
}

export const documentIdOf = (event: RecordedEvent): string => (event.data as { id: string }).id;
