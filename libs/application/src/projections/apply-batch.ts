// Turns a batch of log events into document changes: loads each touched document once, applies events in order,
// and skips an event the document has already seen (its revision is not above the stored one), so replays are harmless.
import type { RecordedEvent } from '../ports/event-store';
import type { DocumentChange, ProjectionStore, StoredDocument } from '../ports/projection-store';
import { documentIdOf, Projection } from './projection';

/** Projections by the event types they follow: an event may feed several (its own collection and the audit log). */
export class ProjectionSet {
  private readonly byType = new Map<string, Projection[]>();

  constructor(readonly projections: readonly Projection<any>[]) {
    for (const projection of projections) {
      for (const type of projection.eventTypes) this.byType.set(type, [...(this.byType.get(type) ?? []), projection]);
    }
  }

  for(event: RecordedEvent): readonly Projection[] {
    return this.byType.get(event.type) ?? NONE;
  }
}

const NONE: readonly Projection[] = [];

export async function applyBatch(
  events: RecordedEvent[],
  projections: ProjectionSet,
  store: ProjectionStore,
): Promise<DocumentChange[]> {
  const wanted = new Map<string, Set<string>>();
  for (const event of events) {
    for (const projection of projections.for(event)) {
      const ids = wanted.get(projection.collection) ?? new Set<string>();
      ids.add(documentIdOf(event, projection));
      wanted.set(projection.collection, ids);
    }
  }
  const current = new Map<string, StoredDocument | null>();
  for (const [collection, ids] of wanted) {
    const loaded = await store.load(collection, [...ids]);
    for (const id of ids) current.set(`${collection}\u0000${id}`, loaded.get(id) ?? null);
  }

  const changes = new Map<string, DocumentChange>();
  for (const event of events) {
    for (const projection of projections.for(event)) {
      const id = documentIdOf(event, projection);
      const key = `${projection.collection}\u0000${id}`;
      const stored = current.get(key) ?? null;
      if (stored && stored.revision >= event.revision) continue;
      const doc = projection.evolve(stored?.doc ?? null, event);
      current.set(key, doc === null ? null : { revision: event.revision, doc });
      changes.set(key, { collection: projection.collection, id, revision: event.revision, doc });
    }
  }
  return [...changes.values()];
}
