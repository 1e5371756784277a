// A projection is a pure evolve(document, event) → document | null over one collection, keyed by the event's data.id
// (or by the projection's own documentId, for documents whose id is unique only within a tenant).
import type { RecordedEvent } from '../ports/event-store';

export interface Projection<TDoc = Record<string, unknown>> {
  collection: string;
  eventTypes: readonly string[];
  evolve(doc: TDoc | null, event: RecordedEvent): TDoc | null;
  /** The document an event belongs to; data.id when absent. */
  documentId?(event: RecordedEvent): string;
}

export const documentIdOf = (event: RecordedEvent, projection?: Pick<Projection, 'documentId'>): string =>
  projection?.documentId ? projection.documentId(event) : (event.data as { id: string }).id;
