// Turns one commit's document changes into as few Meilisearch writes as possible: one addDocuments per collection (and
// one deleteDocuments, and one for the tombstones), split only where a request body would pass the payload budget.
import { isTenantPurge, type DocumentChange } from '@vault/application';
import type { MeiliDocument } from './meili-collection';

/** Document ids allow only letters, digits, `-` and `_`; collection names have no `-`, so the first one separates. */
export const tombstoneId = (collection: string, id: string): string => `${collection}-${id}`;

/**
 * Bytes of JSON per request. Meilisearch refuses bodies over its `--http-payload-size-limit` (100 MB by default); a
 * rebuild batch of thousands of large tokens would pass it in one request. Smaller bodies cost little: consecutive
 * additions to one index are indexed together anyway (autobatching).
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

export interface CommitPlan {
  tombstones: MeiliDocument[][];
  upserts: Array<{ collection: string; documents: MeiliDocument[] }>;
  deletes: Array<{ collection: string; ids: string[] }>;
  /** Every id the commit writes, per collection. */
  touched: Map<string, string[]>;
  /** Deleted tenants whose documents go, after every other write of the commit. */
  purgedTenants: string[];
}

export function planCommit(
  changes: DocumentChange[],
  toDocument: (change: DocumentChange & { doc: Record<string, unknown> }) => MeiliDocument,
  maxPayloadBytes = MAX_PAYLOAD_BYTES,
): CommitPlan {
  const upserts = new Map<string, MeiliDocument[]>();
  const deletes = new Map<string, string[]>();
  const tombstones: MeiliDocument[] = [];
  const touched = new Map<string, string[]>();
  const purgedTenants: string[] = [];
  const add = <T>(map: Map<string, T[]>, key: string, item: T) => {
    const items = map.get(key);
    if (items) items.push(item);
    else map.set(key, [item]);
  };
  for (const change of changes) {
    if (isTenantPurge(change)) {
      purgedTenants.push(change.id);
      continue;
    }
    add(touched, change.collection, change.id);
    if (change.doc === null) {
      add(deletes, change.collection, change.id);
      const id = tombstoneId(change.collection, change.id);
      tombstones.push({ id, collection: change.collection, doc_id: change.id, _revision: Number(change.revision) });
    } else {
      add(upserts, change.collection, toDocument({ ...change, doc: change.doc }));
    }
  }
  const split = <T>(items: T[]) => chunkByBytes(items, maxPayloadBytes);
  return {
    tombstones: split(tombstones),
    upserts: [...upserts].flatMap(([collection, docs]) => split(docs).map((documents) => ({ collection, documents }))),
    deletes: [...deletes].flatMap(([collection, ids]) => split(ids).map((chunk) => ({ collection, ids: chunk }))),
    touched,
    purgedTenants,
  };
}

/**
 * Consecutive chunks whose JSON array stays within `maxBytes` (a single item larger than that gets a chunk of its own,
 * for the server to judge). Order is kept.
 */
export function chunkByBytes<T>(items: T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 1; // `[`; each item brings its `,` or the closing `]`
  for (const item of items) {
    const bytes = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length > 0 && size + bytes > maxBytes) {
      chunks.push(current);
      current = [];
      size = 1;
    }
    current.push(item);
    size += bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
