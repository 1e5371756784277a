// The Meilisearch read model: one index per collection, plus `<prefix>_checkpoints` (the projector's position and the
// generation marker) and `<prefix>_tombstones` (deleted documents' revisions). Writes are async tasks, so a commit waits
// for every document task before it writes the checkpoint: a crash in between replays the batch, and the revisions
// load() returns make that harmless. A rebuild fills a new generation of indexes and swaps them all in at once.
import { randomBytes } from 'node:crypto';
import { ErrorStatusCode, Meilisearch, type Index, type RecordAny, type Settings, type WaitOptions } from 'meilisearch';
import type {
  DocumentChange,
  LogPosition,
  ProjectionStore,
  RebuildableReadModel,
  RebuildTarget,
  StoredDocument,
} from '@vault/application';
import { meiliIndexSettings, type MeiliCollection } from './meili-collection';
import { GENERATION_ID, GenerationGuard } from './meili-generation';
import { MeiliStore, type MeiliIndexNames } from './meili-store';
import { fetchAll, settle, settleAll } from './meili-tasks';
import { UnsupportedMeilisearchVersion, unsupportedMeiliVersion } from './meili-version';
import { redactCredentials, sanitizedError } from '../../system/redact-credentials';

export type { MeiliIndexNames } from './meili-store';

export interface MeiliOptions {
  host: string;
  apiKey?: string;
  /** Starts every index uid, so several vaults (or test runs) can share one server. Default `vault`. */
  indexPrefix?: string;
  /** How long to wait for one task: indexing a rebuild batch of thousands of documents can take a while. */
  taskTimeoutMs?: number;
}

// Lower than the client's 50 ms default: a write waits for its task before it may answer (read-your-writes).
const POLL_INTERVAL_MS = 10;

export function meiliIndexNames(prefix: string, collections: string[], suffix = ''): MeiliIndexNames {
  return {
    collections: new Map(collections.map((name) => [name, `${prefix}_${name}${suffix}`])),
    checkpoints: `${prefix}_checkpoints${suffix}`,
    tombstones: `${prefix}_tombstones${suffix}`,
  };
}

const allUids = (names: MeiliIndexNames): string[] => [...names.collections.values(), names.checkpoints, names.tombstones];

// Tombstones, the checkpoint and the generation marker are only ever looked up by id.
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
    const names = meiliIndexNames(this.prefix, [...this.byName.keys()]);
    this.live = new MeiliStore(this.client, this.byName, names, this.wait, { kind: 'live', guard: new GenerationGuard() });
  }

  /** Checks the server's version, creates the live indexes if missing and (re)applies their settings; run on every start. */
  async ensureSetup(): Promise<void> {
    try {
      await this.requireSupportedServer();
      await createIndexes(this.client, this.live.names, this.byName, this.wait);
    } catch (error) {
      // The client's errors quote the request URL, VAULT_SEARCH's credentials included: main() logs what this throws.
      throw sanitizedError(error);
    }
  }

  /** Refuses a server older than MINIMUM_MEILISEARCH_VERSION (GET /version), naming both versions. */
  async requireSupportedServer(): Promise<void> {
    const { pkgVersion } = await this.client.getVersion();
    const problem = unsupportedMeiliVersion(redactCredentials(this.options.host), pkgVersion);
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
    return `Meilisearch read model at ${redactCredentials(this.options.host)} (indexes ${this.prefix}_*)`;
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
    const generation = `rebuild_${Date.now()}_${randomBytes(3).toString('hex')}`;
    const names = meiliIndexNames(this.prefix, [...this.byName.keys()], `_${generation}`);
    try {
      await createIndexes(this.client, names, this.byName, this.wait);
      // Only a rebuild writes a marker; the swap carries it into the live checkpoints index with everything else.
      const marker = { id: GENERATION_ID, generation };
      await settle(this.client.index(names.checkpoints).addDocuments([marker], { primaryKey: 'id' }), this.wait);
    } catch (error) {
      await deleteIndexes(this.client, allUids(names), this.wait).catch(() => undefined);
      throw error;
    }
    return {
      store: new MeiliStore(this.client, this.byName, names, this.wait, { kind: 'rebuild', generation }),
      swapIn: async () => {
        const live = allUids(this.live.names);
        const rebuilt = allUids(names);
        // One swap task for every index, checkpoints (with the generation marker) and tombstones included: readers
        // never see a mix of generations, and a projector commit the swap splits finds out (meili-store.ts).
        // `rename` is required by the client and refused by servers before v1.18 (see meili-version.ts).
        await settle(this.client.swapIndexes(live.map((uid, i) => ({ indexes: [uid, rebuilt[i]], rename: false }))), this.wait);
        // The rebuild's uids now hold the old contents.
        await deleteIndexes(this.client, rebuilt, this.wait);
      },
      discard: () => deleteIndexes(this.client, allUids(names), this.wait),
    };
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
