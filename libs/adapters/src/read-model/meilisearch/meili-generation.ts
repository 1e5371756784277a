// Generations of the Meilisearch read model, as pure logic. A rebuild fills a fresh set of indexes whose checkpoints
// index holds a generation marker that only the rebuild writes, and swaps every index in one task, marker included.
// Tasks enqueued before the swap run on the old contents, later ones on the new, so a swap landing inside a projector
// commit splits it; comparing the marker before and after the commit tells the projector that happened.
import { comparePositions, decodePosition, type LogPosition } from '@vault/application';

/** Id of the marker document in the checkpoints index. */
export const GENERATION_ID = 'generation';

/** The generation's marker and its checkpoint, read from the checkpoints index in one request (one snapshot). */
export interface LiveState {
  /** null: the generation from before markers existed (no rebuild has been swapped in since). */
  generation: string | null;
  position: LogPosition | null;
}

/**
 * The checkpoint document of a generation. Each generation has its own id, so a projector checkpoint written after a
 * swap it has not seen yet lands beside the rebuilt checkpoint instead of overwriting it.
 */
export const checkpointId = (generation: string | null): string => (generation === null ? 'projector' : `projector_${generation}`);

/** Reads the live state from every document of a checkpoints index (marker, checkpoints, leftovers of other generations). */
export function readLiveState(documents: Array<Record<string, unknown>>): LiveState {
  const marker = documents.find((d) => d.id === GENERATION_ID);
  const generation = typeof marker?.generation === 'string' ? marker.generation : null;
  const checkpoint = documents.find((d) => d.id === checkpointId(generation));
  return { generation, position: typeof checkpoint?.position === 'string' ? decodePosition(checkpoint.position) : null };
}

/**
 * Which generation a writer's next batch was computed from: the one its latest checkpoint read (or commit) saw. The
 * projector reads the checkpoint at the start of every batch, before it loads anything, so a commit that finds another
 * generation live had a swap land after that read: it must write nothing. Reads are not told apart by caller, so a
 * checkpoint read by someone else in the same process inside that window (the health check of an API that runs the
 * projector inline) moves the expectation too; the production stack's projector runs alone in its process.
 */
export class GenerationGuard {
  private expected: string | null | undefined = undefined;

  /** A checkpoint read saw `generation`. */
  observe(generation: string | null): void {
    this.expected = generation;
  }

  /** At the start of a commit, with the live generation just read: may the batch be written? */
  mayWrite(generation: string | null): boolean {
    // A writer that never read the checkpoint (a test, a one-off tool) starts from whatever is live.
    if (this.expected === undefined) this.expected = generation;
    const ok = generation === this.expected;
    if (!ok) this.forget();
    return ok;
  }

  /** After a refused or failed commit: the next checkpoint read (the projector's, as it resumes) sets the expectation. */
  forget(): void {
    this.expected = undefined;
  }
}

/** The earlier of two checkpoints; null (nothing applied yet) is the earliest. */
export function earlierCheckpoint(a: LogPosition | null, b: LogPosition | null): LogPosition | null {
  if (a === null || b === null) return null;
  return comparePositions(a, b) <= 0 ? a : b;
}


/** What one id holds in a generation: the document's revision and its tombstone's, each when present. */
export interface StoredRevisions {
  doc?: bigint;
  tombstone?: bigint;
}

/**
 * Documents their tombstone says are deleted (load() reports the tombstone unless the document is newer). A consistent
 * generation has none, since a delete removes the document; a split commit can leave one (the document written after
 * the swap, the tombstone from the rebuild), and a replay would never remove it because load() reports the tombstone.
 */
export function shadowedDocuments(stored: Map<string, StoredRevisions>): string[] {
  const shadowed: string[] = [];
  for (const [id, { doc, tombstone }] of stored) {
    if (doc !== undefined && tombstone !== undefined && tombstone >= doc) shadowed.push(id);
  }
  return shadowed;
}
