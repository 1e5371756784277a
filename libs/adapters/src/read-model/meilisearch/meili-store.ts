// One generation of the Meilisearch read model as a ProjectionStore. The live one is guarded: a commit writes only while
// the generation it was loaded from is live, and checks again afterwards; a rebuild's is written by the rebuild alone.
import { type EnqueuedTaskPromise, type Index, type Meilisearch, type RecordAny, type WaitOptions } from 'meilisearch';
import {
  encodePosition,
  ReadModelGenerationChanged,
  type DocumentChange,
  type LogPosition,
  type ProjectionStore,
  samePosition,
  type StoredDocument,
} from '@vault/application';
import type { MeiliCollection } from './meili-collection';
import { planCommit, tombstoneId, type CommitPlan } from './meili-commit-plan';
import {
  checkpointId,
  earlierCheckpoint,
  GenerationGuard,
  readLiveState,
  shadowedDocuments,
  type LiveState,
  type StoredRevisions,
} from './meili-generation';
import { chunks, fetchAll, idIn, settle, settleAll } from './meili-tasks';

/** The uids that make up one generation of the read model; a rebuild makes a second generation and swaps it in. */
export interface MeiliIndexNames {
  collections: Map<string, string>;
  checkpoints: string;
  tombstones: string;
}

export type MeiliStoreRole = { kind: 'live'; guard: GenerationGuard } | { kind: 'rebuild'; generation: string };

// Ids per `id IN [...]` filter: small enough for one request body.
const LOAD_CHUNK = 500;
// The checkpoints index holds the marker, the checkpoint and at most a few leftovers: one page, so one snapshot.
const CHECKPOINTS_PAGE = 1000;
// Each round of a repair follows one more swap that landed under it; rebuilds are minutes apart, not milliseconds.
const REPAIR_ROUNDS = 5;

/** A commit whose writes may have started: until it is known which generation they reached, nothing else is written. */
interface Unconfirmed {
  before: LiveState;
  touched: Map<string, string[]>;
}

export class MeiliStore implements ProjectionStore {
  private unconfirmed: Unconfirmed | null = null;

  constructor(
    private readonly client: Meilisearch,
    private readonly collections: Map<string, MeiliCollection>,
    readonly names: MeiliIndexNames,
    private readonly wait: WaitOptions,
    private readonly role: MeiliStoreRole,
  ) {}

  index(collection: string): Index {
    const uid = this.names.collections.get(collection);
    if (!uid) throw new Error(`No Meilisearch collection "${collection}"`);
    return this.client.index(uid);
  }

  /** The generation marker and its checkpoint, from one request: both come from the same generation. */
  async liveState(): Promise<LiveState> {
    const page = await this.client.index(this.names.checkpoints).getDocuments({ limit: CHECKPOINTS_PAGE });
    return readLiveState(page.results);
  }

  async checkpoint(): Promise<LogPosition | null> {
    const state = await this.liveState();
    if (this.role.kind === 'live') this.role.guard.observe(state.generation);
    return state.position;
  }

  async load(collection: string, ids: string[]): Promise<Map<string, StoredDocument>> {
    const definition = this.definition(collection);
    const { docs, tombstones } = await this.fetchStored(collection, ids);
    const loaded = new Map<string, StoredDocument>();
    for (const id of new Set(ids)) {
      const doc = docs.get(id);
      const tombstone = tombstones.get(id);
      if (doc && (!tombstone || BigInt(doc._revision) > BigInt(tombstone._revision))) {
        loaded.set(id, { revision: BigInt(doc._revision), doc: definition.fromDocument(doc) });
      } else if (tombstone) {
        loaded.set(id, { revision: BigInt(tombstone._revision), doc: null });
      }
    }
    return loaded;
  }

  async commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    const plan = planCommit(changes, (c) => this.definition(c.collection).toDocument(c.id, c.revision, c.doc));
    if (this.role.kind === 'rebuild') {
      await this.write(plan);
      await this.writeCheckpoint(this.role.generation, checkpoint);
      return;
    }
    const guard = this.role.guard;
    try {
      if (this.unconfirmed && (await this.confirm())) throw new ReadModelGenerationChanged();
      const before = await this.liveState();
      if (!guard.mayWrite(before.generation)) throw new ReadModelGenerationChanged();
      this.unconfirmed = { before, touched: plan.touched };
      let failure: { error: unknown } | null = null;
      try {
        // Documents first, the checkpoint only once they all succeeded: a failure or crash in between replays the batch.
        await this.write(plan);
        await this.writeCheckpoint(before.generation, checkpoint);
      } catch (error) {
        failure = { error };
      }
      const swapped = await this.confirm().catch((error: unknown) => {
        throw failure ? failure.error : error;
      });
      if (swapped) throw new ReadModelGenerationChanged();
      if (failure) throw failure.error;
    } catch (error) {
      guard.forget();
      throw error;
    }
  }

  /**
   * Finds out whether the unconfirmed commit's writes all reached the generation it loaded from (true: they may not have,
   * and the new generation has been repaired). Throws, keeping the commit unconfirmed, when Meilisearch cannot be read.
   */
  private async confirm(): Promise<boolean> {
    const unconfirmed = this.unconfirmed!;
    const live = await this.liveState();
    if (live.generation !== unconfirmed.before.generation) await this.repair(unconfirmed, live);
    this.unconfirmed = null;
    return live.generation !== unconfirmed.before.generation;
  }

  /**
   * A swap split a commit, so documents it wrote to the new generation were computed from the old one. Each of them is
   * its stream as of some event of the batch, so a replay from the batch's start (or from the rebuilt checkpoint, when
   * that is earlier) brings every one up to date; only a document a newer tombstone shadows is deleted here, because a
   * replay skips it. The commit's checkpoint, written under its own generation's id, is removed. Repeats while further
   * swaps land under the repair.
   */
  private async repair({ before, touched }: Unconfirmed, live: LiveState): Promise<void> {
    const checkpoints = this.client.index(this.names.checkpoints);
    for (let round = 1; ; round++) {
      const tasks: EnqueuedTaskPromise[] = [];
      const replayFrom = earlierCheckpoint(live.position, before.position);
      const liveId = checkpointId(live.generation);
      if (replayFrom === null && live.position !== null) tasks.push(checkpoints.deleteDocument(liveId));
      if (replayFrom !== null && !samePosition(replayFrom, live.position)) {
        tasks.push(checkpoints.addDocuments([{ id: liveId, position: encodePosition(replayFrom) }], { primaryKey: 'id' }));
      }
      if (checkpointId(before.generation) !== liveId) tasks.push(checkpoints.deleteDocument(checkpointId(before.generation)));
      for (const [collection, ids] of touched) {
        const shadowed = shadowedDocuments(await this.storedRevisions(collection, ids));
        if (shadowed.length > 0) tasks.push(this.index(collection).deleteDocuments(shadowed));
      }
      await settleAll(tasks, this.wait);
      const after = await this.liveState();
      if (after.generation === live.generation) return;
      if (round === REPAIR_ROUNDS) {
        throw new Error(`Meilisearch read model: ${round} rebuilds were swapped in during one repair; run one rebuild at a time`);
      }
      live = after;
    }
  }

  private async write(plan: CommitPlan): Promise<void> {
    const tombstones = this.client.index(this.names.tombstones);
    await settleAll(
      [
        ...plan.upserts.map(({ collection, documents }) => this.index(collection).addDocuments(documents, { primaryKey: 'id' })),
        ...plan.deletes.map(({ collection, ids }) => this.index(collection).deleteDocuments(ids)),
        ...plan.tombstones.map((documents) => tombstones.addDocuments(documents, { primaryKey: 'id' })),
      ],
      this.wait,
    );
    // A deleted tenant's documents, once the batch's own writes have succeeded (its later events never reach here).
    if (plan.purgedTenants.length > 0) {
      await settleAll(
        plan.purgedTenants.flatMap((tenantId) =>
          [...this.collections.entries()]
            .filter(([, definition]) => definition.tenantFilter)
            .map(([collection, definition]) => this.index(collection).deleteDocuments({ filter: definition.tenantFilter!(tenantId) })),
        ),
        this.wait,
      );
    }
  }

  private async writeCheckpoint(generation: string | null, position: LogPosition): Promise<void> {
    const document = { id: checkpointId(generation), position: encodePosition(position) };
    await settle(this.client.index(this.names.checkpoints).addDocuments([document], { primaryKey: 'id' }), this.wait);
  }

  /** The documents and tombstones stored under exactly these ids (string filters ignore case, so hits are checked). */
  private async fetchStored(collection: string, ids: string[]): Promise<{ docs: Map<string, RecordAny>; tombstones: Map<string, RecordAny> }> {
    const wanted = new Set(ids);
    const docs = new Map<string, RecordAny>();
    const tombstones = new Map<string, RecordAny>();
    for (const chunk of chunks([...wanted], LOAD_CHUNK)) {
      const [foundDocs, foundTombstones] = await Promise.all([
        fetchAll(this.index(collection), [idIn(chunk)]),
        fetchAll(this.client.index(this.names.tombstones), [idIn(chunk.map((id) => tombstoneId(collection, id)))]),
      ]);
      for (const t of foundTombstones) if (t.collection === collection && wanted.has(t.doc_id)) tombstones.set(t.doc_id, t);
      for (const d of foundDocs) if (wanted.has(d.id)) docs.set(d.id, d);
    }
    return { docs, tombstones };
  }

  private async storedRevisions(collection: string, ids: string[]): Promise<Map<string, StoredRevisions>> {
    const { docs, tombstones } = await this.fetchStored(collection, ids);
    const revisions = new Map<string, StoredRevisions>();
    for (const id of new Set(ids)) {
      const doc = docs.get(id);
      const tombstone = tombstones.get(id);
      revisions.set(id, {
        ...(doc && { doc: BigInt(doc._revision) }),
        ...(tombstone && { tombstone: BigInt(tombstone._revision) }),
      });
    }
    return revisions;
  }

  private definition(collection: string): MeiliCollection {
    const definition = this.collections.get(collection);
    if (!definition) throw new Error(`No Meilisearch collection "${collection}"`);
    return definition;
  }
}
