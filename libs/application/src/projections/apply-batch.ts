// Turns a batch of log events into document changes: loads each touched document once, applies events in order,
// and skips an event the document has already seen (its revision is not above the stored one), so replays are harmless.
import type { RecordedEvent } from '../ports/event-store';
import { TENANT_EVENT_TYPES, type TenantDeleted } from '@vault/domain';
import { PURGE_TENANT, type DocumentChange, type ProjectionStore, type StoredDocument } from '../ports/projection-store';
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

  /** Whether these projections keep tenants (and so purge a deleted tenant's documents and drop its later events). */
  get keepsTenants(): boolean {
    return this.projections.some((projection) => projection.collection === TENANTS);
  }
}

const TENANTS = 'tenants';
const isTenantEvent = (event: RecordedEvent): boolean => (TENANT_EVENT_TYPES as readonly string[]).includes(event.type);

const NONE: readonly Projection[] = [];

/**
 * A deleted tenant's documents go with it (deleting a tenant deletes everything in it): its TenantDeleted adds a PURGE_TENANT change after the
 * batch's other changes, and every later event of that tenant (a write that was in flight when it was deleted, or a
 * replay) is dropped, by the tenant's tombstone in `tenants` or by the TenantDeleted earlier in the batch.
 */
export async function applyBatch(
  events: RecordedEvent[],
  projections: ProjectionSet,
  store: ProjectionStore,
): Promise<DocumentChange[]> {
  const deletedTenants = projections.keepsTenants ? await tenantsDeletedBefore(events, store) : new Set<string>();
  const purges: DocumentChange[] = [];
  if (projections.keepsTenants) {
    events = events.filter((event) => {
      if (event.type === 'TenantDeleted') {
        const tenantId = (event.data as TenantDeleted['data']).id;
        deletedTenants.add(tenantId);
        purges.push({ collection: PURGE_TENANT, id: tenantId, revision: event.revision, doc: null });
        return true;
      }
      const tenantId = event.metadata?.tenant_id;
      return isTenantEvent(event) || !tenantId || !deletedTenants.has(tenantId);
    });
  }
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
      // Nothing stored and nothing to store (an official formula's event in the audit projection): no change, so a
      // store that keeps tombstones writes none.
      if (doc === null && stored === null) continue;
      current.set(key, doc === null ? null : { revision: event.revision, doc });
      changes.set(key, { collection: projection.collection, id, revision: event.revision, doc });
    }
  }
  return [...changes.values(), ...purges];
}

/** The tenants of these events that were deleted before the batch (their tombstone is stored). */
async function tenantsDeletedBefore(events: RecordedEvent[], store: ProjectionStore): Promise<Set<string>> {
  const tenantIds = new Set<string>();
  for (const event of events) if (event.metadata?.tenant_id && !isTenantEvent(event)) tenantIds.add(event.metadata.tenant_id);
  const deleted = new Set<string>();
  if (tenantIds.size === 0) return deleted;
  for (const [id, stored] of await store.load(TENANTS, [...tenantIds])) if ((stored.doc as { deleted?: boolean } | null)?.deleted) deleted.add(id);
  return deleted;
}
