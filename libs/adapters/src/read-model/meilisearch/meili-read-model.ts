// The Meilisearch read model: one index per collection, plus `<prefix>_checkpoints` (the projector's position) and
// `<prefix>_tombstones` (deleted documents' revisions). Writes are async tasks, so commit waits for every document task
// before it writes the checkpoint: a crash in between replays the batch, and the revisions load() returns make that harmless.
import { randomBytes } from 'node:crypto';
import {
  ErrorStatusCode,
  Meilisearch,
  MeilisearchApiError,
  type EnqueuedTaskPromise,
  type Index,
  type RecordAny,
  type Settings,
  type WaitOptions,
} from 'meilisearch';
import {
  decodePosition,
  encodePosition,
  type DocumentChange,
  type LogPosition,
  type ProjectionStore,
  type RebuildableReadModel,
  type RebuildTarget,
  type StoredDocument,
} from '@vault/application';
import { meiliIndexSettings, meiliQuote, type MeiliCollection, type MeiliDocument } from './meili-collection';
import { UnsupportedMeilisearchVersion, unsupportedMeiliVersion } from './meili-version';

export interface MeiliOptions {
  host: string;
  apiKey?: string;
  /** Starts every index uid, so several vaults (or test runs) can share one server. Default `vault`. */
  indexPrefix?: string;
  /** How long to wait for one task: indexing a rebuild batch of thousands of documents can take a while. */
  taskTimeoutMs?: number;
}

const CHECKPOINT_ID = 'projector';
// Ids per `id IN [...]` filter, and documents per fetch page: small enough for one request body each.
const LOAD_CHUNK = 500;
const FETCH_PAGE = 1000;
// Lower than the client's 50 ms default: a write waits for its task before it may answer (read-your-writes).
const POLL_INTERVAL_MS = 10;

/** The uids that make up one generation of the read model; a rebuild makes a second generation and swaps it in. */
export interface MeiliIndexNames {
  collections: Map<string, string>;
  checkpoints: string;
  tombstones: string;
}

export function meiliIndexNames(prefix: string, collections: string[], suffix = ''): MeiliIndexNames {
  return {
    collections: new Map(collections.map((name) => [name, `${prefix}_${name}${suffix}`])),
    checkpoints: `${prefix}_checkpoints${suffix}`,
    tombstones: `${prefix}_tombstones${suffix}`,
  };
}

const allUids = (names: MeiliIndexNames): string[] => [...names.collections.values(), names.checkpoints, names.tombstones];

/** Document ids allow only letters, digits, `-` and `_`; collection names have no `-`, so the first one separates. */
export const tombstoneId = (collection: string, id: string): string => `${collection}-${id}`;

// Tombstones and the checkpoint are only ever looked up by id.
const INTERNAL_SETTINGS: Settings = { filterableAttributes: ['id'], searchableAttributes: ['id'], typoTolerance: { enabled: false } };

export class MeiliReadModel implements ProjectionStore, RebuildableReadModel {
  readonly client: Meilisearch;
  private readonly prefix: string;
  private readonly byName: Map<string, MeiliCollection>;
  private readonly wait: WaitOptions;
  private readonly live: MeiliStore;

  constructor(
    private readonly options: MeiliOptions,
    collections: MeiliCollection[],
  ) {
    this.prefix = options.indexPrefix ?? 'vault';
    if (!/^[A-Za-z0-9_-]+$/.test(this.prefix)) throw new Error(`Invalid Meilisearch index prefix "${this.prefix}"`);
    for (const { name } of collections) {
      if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`Invalid Meilisearch collection name "${name}"`);
    }
    this.client = new Meilisearch({ host: options.host, apiKey: options.apiKey });
    this.byName = new Map(collections.map((c) => [c.name, c]));
    this.wait = { timeout: options.taskTimeoutMs ?? 120_000, interval: POLL_INTERVAL_MS };
    this.live = new MeiliStore(this.client, this.byName, meiliIndexNames(this.prefix, [...this.byName.keys()]), this.wait);
  }

  /** Checks the server's version, creates the live indexes if missing and (re)applies their settings; run on every start. */
  async ensureSetup(): Promise<void> {
    await this.requireSupportedServer();
    await createIndexes(this.client, this.live.names, this.byName, this.wait);
  }

  /** Refuses a server older than MINIMUM_MEILISEARCH_VERSION (GET /version), naming both versions. */
  async requireSupportedServer(): Promise<void> {
    const { pkgVersion } = await this.client.getVersion();
    const problem = unsupportedMeiliVersion(this.options.host, pkgVersion);
    if (problem) throw new UnsupportedMeilisearchVersion(problem);
  }

  /** The live index of a collection. Its uid never changes: a rebuild swaps the contents under it. */
  index(collection: string): Index {
    return this.live.index(collection);
  }

  /** Every live document of `collection` matching `filter` (an AND of its elements), raw as stored. */
  find(collection: string, filter: string[]): Promise<RecordAny[]> {
    return fetchAll(this.index(collection), filter);
  }

  describe(): string {
    return `Meilisearch read model at ${this.options.host} (indexes ${this.prefix}_*)`;
  }

  checkpoint(): Promise<LogPosition | null> {
    return this.live.checkpoint();
  }

  load(collection: string, ids: string[]): Promise<Map<string, StoredDocument>> {
    return this.live.load(collection, ids);
  }

  commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    return this.live.commit(changes, checkpoint);
  }

  async createRebuildTarget(): Promise<RebuildTarget> {
    const suffix = `_rebuild_${Date.now()}_${randomBytes(3).toString('hex')}`;
    const names = meiliIndexNames(this.prefix, [...this.byName.keys()], suffix);
    try {
      await createIndexes(this.client, names, this.byName, this.wait);
    } catch (error) {
      await deleteIndexes(this.client, allUids(names), this.wait).catch(() => undefined);
      throw error;
    }
    return {
      store: new MeiliStore(this.client, this.byName, names, this.wait),
      swapIn: async () => {
        const live = allUids(this.live.names);
        const rebuilt = allUids(names);
        // One swap task for every index, checkpoint and tombstones included: readers never see a mix of generations.
        // `rename` is required by the client and refused by servers before v1.18 (see meili-version.ts).
        await settle(this.client.swapIndexes(live.map((uid, i) => ({ indexes: [uid, rebuilt[i]], rename: false }))), this.wait);
        // The rebuild's uids now hold the old contents.
        await deleteIndexes(this.client, rebuilt, this.wait);
      },
      discard: () => deleteIndexes(this.client, allUids(names), this.wait),
    };
  }
}

/** One generation of indexes as a ProjectionStore. */
class MeiliStore implements ProjectionStore {
  constructor(
    private readonly client: Meilisearch,
    private readonly collections: Map<string, MeiliCollection>,
    readonly names: MeiliIndexNames,
    private readonly wait: WaitOptions,
  ) {}

  index(collection: string): Index {
    const uid = this.names.collections.get(collection);
    if (!uid) throw new Error(`No Meilisearch collection "${collection}"`);
    return this.client.index(uid);
  }

  async checkpoint(): Promise<LogPosition | null> {
    try {
      const doc = await this.client.index(this.names.checkpoints).getDocument(CHECKPOINT_ID);
      return decodePosition(doc.position as string);
    } catch (error) {
      if (isApiError(error, ErrorStatusCode.DOCUMENT_NOT_FOUND)) return null;
      throw error;
    }
  }

  async load(collection: string, ids: string[]): Promise<Map<string, StoredDocument>> {
    const definition = this.definition(collection);
    const loaded = new Map<string, StoredDocument>();
    const keep = (id: string, stored: StoredDocument) => {
      const current = loaded.get(id);
      if (!current || stored.revision > current.revision) loaded.set(id, stored);
    };
    const wanted = new Set(ids);
    for (const chunk of chunks([...wanted], LOAD_CHUNK)) {
      const [docs, tombstones] = await Promise.all([
        fetchAll(this.index(collection), [idIn(chunk)]),
        fetchAll(this.client.index(this.names.tombstones), [idIn(chunk.map((id) => tombstoneId(collection, id)))]),
      ]);
      // String filters ignore case, so a hit may be another id that differs only in case: keep exact ids only.
      for (const t of tombstones) {
        if (t.collection === collection && wanted.has(t.doc_id)) keep(t.doc_id, { revision: BigInt(t._revision), doc: null });
      }
      for (const d of docs) {
        if (wanted.has(d.id)) keep(d.id, { revision: BigInt(d._revision), doc: definition.fromDocument(d) });
      }
    }
    return loaded;
  }

  async commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    const upserts = new Map<string, MeiliDocument[]>();
    const deletes = new Map<string, string[]>();
    const tombstones: MeiliDocument[] = [];
    for (const change of changes) {
      const definition = this.definition(change.collection);
      if (change.doc === null) {
        deletes.set(change.collection, [...(deletes.get(change.collection) ?? []), change.id]);
        const id = tombstoneId(change.collection, change.id);
        tombstones.push({ id, collection: change.collection, doc_id: change.id, _revision: Number(change.revision) });
      } else {
        const docs = upserts.get(change.collection) ?? [];
        docs.push(definition.toDocument(change.id, change.revision, change.doc));
        upserts.set(change.collection, docs);
      }
    }
    const tasks: EnqueuedTaskPromise[] = [];
    for (const [collection, docs] of upserts) tasks.push(this.index(collection).addDocuments(docs, { primaryKey: 'id' }));
    for (const [collection, ids] of deletes) tasks.push(this.index(collection).deleteDocuments(ids));
    if (tombstones.length > 0) tasks.push(this.client.index(this.names.tombstones).addDocuments(tombstones, { primaryKey: 'id' }));
    await settleAll(tasks, this.wait);
    // Only after every document task succeeded: a crash before this point replays the batch instead of skipping it.
    const position = { id: CHECKPOINT_ID, position: encodePosition(checkpoint) };
    await settle(this.client.index(this.names.checkpoints).addDocuments([position], { primaryKey: 'id' }), this.wait);
  }

  private definition(collection: string): MeiliCollection {
    const definition = this.collections.get(collection);
    if (!definition) throw new Error(`No Meilisearch collection "${collection}"`);
    return definition;
  }
}

async function createIndexes(
  client: Meilisearch,
  names: MeiliIndexNames,
  collections: Map<string, MeiliCollection>,
  wait: WaitOptions,
): Promise<void> {
  const plan: Array<[string, Settings]> = [
    ...[...names.collections].map(([name, uid]): [string, Settings] => [uid, meiliIndexSettings(collections.get(name)!.settings)]),
    [names.checkpoints, INTERNAL_SETTINGS],
    [names.tombstones, INTERNAL_SETTINGS],
  ];
  await Promise.all(
    plan.map(async ([uid, settings]) => {
      await settle(client.createIndex(uid, { primaryKey: 'id' }), wait, [ErrorStatusCode.INDEX_ALREADY_EXISTS]);
      await settle(client.index(uid).updateSettings(settings), wait);
    }),
  );
}

async function deleteIndexes(client: Meilisearch, uids: string[], wait: WaitOptions): Promise<void> {
  await settleAll(
    uids.map((uid) => client.deleteIndex(uid)),
    wait,
    [ErrorStatusCode.INDEX_NOT_FOUND],
  );
}

/** Every document matching `filter`, page by page (the documents route is not capped by maxTotalHits). */
async function fetchAll(index: Index, filter: string[]): Promise<RecordAny[]> {
  const found: RecordAny[] = [];
  for (;;) {
    const page = await index.getDocuments({ filter, offset: found.length, limit: FETCH_PAGE });
    found.push(...page.results);
    if (page.results.length === 0 || found.length >= page.total) return found;
  }
}

const idIn = (ids: string[]): string => `id IN [${ids.map(meiliQuote).join(', ')}]`;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Waits for a task and throws unless it succeeded (or failed with one of the `tolerated` error codes). */
async function settle(task: EnqueuedTaskPromise, wait: WaitOptions, tolerated: string[] = []): Promise<void> {
  const done = await task.waitTask(wait);
  if (done.status === 'succeeded') return;
  if (done.status === 'failed' && done.error && tolerated.includes(done.error.code)) return;
  const reason = done.error ? `${done.error.code}: ${done.error.message}` : done.status;
  throw new Error(`Meilisearch task ${done.uid} (${done.type} on ${done.indexUid ?? 'all indexes'}) did not succeed: ${reason}`);
}

/** Waits for every task (none is left running unobserved), then throws the first failure. */
async function settleAll(tasks: EnqueuedTaskPromise[], wait: WaitOptions, tolerated: string[] = []): Promise<void> {
  const results = await Promise.allSettled(tasks.map((task) => settle(task, wait, tolerated)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

const isApiError = (error: unknown, code: string): boolean =>
  error instanceof MeilisearchApiError && error.cause?.code === code;
