// Where projections keep their documents and their checkpoint. Adapters only upsert and delete; the logic is in projections.
import type { LogPosition } from './event-store';

export interface StoredDocument<T = Record<string, unknown>> {
  /** Revision of the last event of the document's stream that was applied. */
  revision: bigint;
  /** null: a tombstone, kept by stores that can replay events (so a replayed create does not resurrect it). */
  doc: T | null;
}

export interface DocumentChange {
  collection: string;
  id: string;
  revision: bigint;
  /** null deletes the document. */
  doc: Record<string, unknown> | null;
}

/**
 * The collection name of a change that removes every document of the tenant `id` from every collection that holds
 * tenants' documents (all but `tenants`, which keeps the deleted tenant's tombstone). applyBatch puts such changes
 * after every other change of the batch.
 */
export const PURGE_TENANT = '*purge-tenant*';

export const isTenantPurge = (change: DocumentChange): boolean => change.collection === PURGE_TENANT;

export interface ProjectionStore {
  /** The position of the last event whose effects are stored, or null before the first one. */
  checkpoint(): Promise<LogPosition | null>;
  load(collection: string, ids: string[]): Promise<Map<string, StoredDocument>>;
  /**
   * Writes the changes and the checkpoint so that a crash at any point neither loses nor double-applies an event.
   * Throws `ReadModelGenerationChanged` when a rebuild was swapped in under the batch: resume from `checkpoint()`.
   */
  commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void>;
}

/**
 * A rebuilt read model was swapped in while a batch was being applied (Meilisearch: between reading the documents and
 * writing the checkpoint), so some of its writes may have gone to the generation that was swapped out. The store has
 * already moved its checkpoint back far enough that replaying from `checkpoint()` re-applies every such event; the
 * caller must resume from there, not from its own position. Nothing is lost unless the caller carries on regardless.
 */
export class ReadModelGenerationChanged extends Error {
  constructor(message = "a rebuilt read model was swapped in during the batch; replay from the store's checkpoint") {
    super(message);
    this.name = 'ReadModelGenerationChanged';
  }
}

/** A fresh, empty store for a rebuild, and the switch that makes it the live one. */
export interface RebuildTarget {
  store: ProjectionStore;
  /** Atomically makes the rebuilt store the one every reader and the projector use. */
  swapIn(): Promise<void>;
  /** Throws the rebuilt store away (on failure or cancel). */
  discard(): Promise<void>;
}

export interface RebuildableReadModel {
  describe(): string;
  createRebuildTarget(): Promise<RebuildTarget>;
}
