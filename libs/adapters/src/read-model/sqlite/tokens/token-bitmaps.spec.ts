// The bitmap search engine (token-bitmaps.ts, token-bitmap-follower.ts) where the shared corpus does not reach: rowid
// gaps, creation times out of rowid order, commits by another connection, a pruned change log, expiry inside the
// current minute, postings crossing the in-memory threshold, two tenants side by side. Every answer is held to the
// domain's reference evaluator over what was committed, ordered by created_at descending, then id.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { PURGE_TENANT, type DocumentChange, type TokenDocument } from '@vault/application';
import { evaluateQuery, parseQuery, tokenKey, type QueryNode } from '@vault/domain';
import { queryNodeArbitrary, queryVocabulary as v } from '@vault/domain/search/query.arbitrary';
import { aTokenRecord } from '@vault/domain/search/token-record.builders';
import { SqliteReadModel } from '../sqlite-read-model';
import { SqliteTokenSearchIndex, type SqliteTokenSearchOptions } from './token-search-index';
import { tokensTable } from './tokens-table';
import { CountWorker } from '../count-worker';
import { listBroadTerms } from './broad-terms';
import { TokenBitmapFollower, type SnapshotReader } from './token-bitmap-follower';

const A = 'tenant-a';
const B = 'tenant-b';
/** Creation times cluster around BASE; NOW is in the middle of a minute, long after. */
const BASE = Date.UTC(2024, 0, 15, 10, 0, 0);
const NOW = Date.UTC(2024, 5, 1, 12, 0, 30, 500);
const iso = (ms: number) => new Date(ms).toISOString();
/** Lower-case UUIDs whose order has nothing to do with `n` (the order of creation). */
const uuid = (n: number, key = (n * 2_654_435_761) >>> 0) => `${key.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const aToken = (overrides: Partial<TokenDocument> = {}): TokenDocument =>
  aTokenRecord({ id: uuid(0), tenant_id: A, created_by: v.applications[0], created_at: iso(BASE), ...overrides });

type Change = { put: TokenDocument } | { remove: TokenDocument } | { purge: string };

/** A data dir with its read model, the documents committed to it (the reference side), and the indexes over it. */
class Vault {
  readonly dir = mkdtempSync(join(tmpdir(), 'vault-bitmaps-'));
  readonly model = SqliteReadModel.open(this.dir, [tokensTable]);
  /** Every committed token, by tenant and id. */
  readonly docs = new Map<string, TokenDocument>();
  private readonly closing: Array<() => Promise<void>> = [];
  private position = 0n;

  /** Another process on the same data dir. */
  connect(): SqliteReadModel {
    const other = SqliteReadModel.open(this.dir, [tokensTable]);
    this.closing.push(() => other.close());
    return other;
  }

  index(options: SqliteTokenSearchOptions = {}): SqliteTokenSearchIndex {
    const index = new SqliteTokenSearchIndex(this.model, options);
    this.closing.push(() => index.close());
    return index;
  }

  async commit(changes: Change[], through: SqliteReadModel = this.model): Promise<void> {
    this.position += 1n;
    const rows: DocumentChange[] = changes.map((change) => {
      if ('put' in change) {
        this.docs.set(tokenKey(change.put.tenant_id, change.put.id), change.put);
        return { collection: 'tokens', id: tokenKey(change.put.tenant_id, change.put.id), revision: this.position, doc: change.put as never };
      }
      if ('remove' in change) {
        this.docs.delete(tokenKey(change.remove.tenant_id, change.remove.id));
        return { collection: 'tokens', id: tokenKey(change.remove.tenant_id, change.remove.id), revision: this.position, doc: null };
      }
      for (const [key, doc] of this.docs) if (doc.tenant_id === change.purge) this.docs.delete(key);
      return { collection: PURGE_TENANT, id: change.purge, revision: this.position, doc: null };
    });
    await through.commit(rows, { commit: this.position, prepare: this.position });
  }

  /**
   * A rebuild by another process, swapped in, and followed by this one: the new file holds exactly `docs` (the
   * reference side becomes them).
   */
  async swapIn(docs: TokenDocument[]): Promise<void> {
    const other = SqliteReadModel.open(this.dir, [tokensTable]);
    try {
      const target = await other.createRebuildTarget();
      this.position += 1n;
      this.docs.clear();
      const rows: DocumentChange[] = docs.map((doc) => {
        this.docs.set(tokenKey(doc.tenant_id, doc.id), doc);
        return { collection: 'tokens', id: tokenKey(doc.tenant_id, doc.id), revision: this.position, doc: doc as never };
      });
      await target.store.commit(rows, { commit: this.position, prepare: this.position });
      await target.swapIn();
    } finally {
      await other.close();
    }
    expect(this.model.followPointer()).toBe(true);
  }

  live(tenantId: string): TokenDocument[] {
    return [...this.docs.values()].filter((doc) => doc.tenant_id === tenantId);
  }

  /** The ids the search must return, in order: the reference evaluator over the tenant's unexpired tokens. */
  expected(tenantId: string, query: QueryNode | null, now: number): string[] {
    return this.live(tenantId)
      .filter((doc) => doc.expires_at === null || Date.parse(doc.expires_at) > now)
      .filter((doc) => evaluateQuery(query, doc))
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((doc) => doc.id);
  }

  async close(): Promise<void> {
    for (const close of this.closing.reverse()) await close();
    await this.model.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function withVault(run: (vault: Vault) => Promise<void>): Promise<void> {
  const vault = new Vault();
  try {
    await run(vault);
  } finally {
    await vault.close();
  }
}

interface Search {
  tenantId: string;
  query: QueryNode | null;
  now?: number;
  page?: number;
  size?: number;
}

/** One page of a search equals the slice of the reference ordering, and its total is exact. */
async function expectPage(index: SqliteTokenSearchIndex, vault: Vault, { tenantId, query, now = NOW, page = 1, size = 100 }: Search): Promise<void> {
  const all = vault.expected(tenantId, query, now);
  const got = await index.search({ tenantId, query, now, page, size });
  expect({ query, page, size, total: got.total, ids: got.items.map((doc) => doc.id) }).toEqual({
    query,
    page,
    size,
    total: all.length,
    ids: all.slice((page - 1) * size, page * size),
  });
}

/** Every page of `size`, and one past the end. */
async function expectEveryPage(index: SqliteTokenSearchIndex, vault: Vault, search: Search & { size: number }): Promise<void> {
  const pages = Math.ceil(vault.expected(search.tenantId, search.query, search.now ?? NOW).length / search.size) + 1;
  for (let page = 1; page <= pages; page++) await expectPage(index, vault, { ...search, page });
}

/** The follower's own answer (the bitmap before any paging) holds exactly the matching tokens. */
function expectFollowed(vault: Vault, follower: TokenBitmapFollower, tenantId: string, query: QueryNode | null, now = NOW): void {
  const rowids = follower.current().evaluate(tenantId, query, now).toArray();
  const ids = vault.model.database.prepare('SELECT id FROM tokens WHERE rowid IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(rowids)) as string[];
  expect({ query, ids: ids.sort(), size: rowids.length }).toEqual({ query, ids: [...vault.expected(tenantId, query, now)].sort(), size: ids.length });
}

// ---- Random histories: creations out of time order, updates and deletes (rowid gaps), purges, two connections ----

interface Shape {
  type: TokenDocument['type'];
  containers: string[];
  metadata: Record<string, string>;
  data: string[];
  fingerprint: string;
  /** Relative to NOW; null: never expires. */
  expiresIn: number | null;
}

type Op =
  | { kind: 'create'; tenant: 0 | 1; shape: Shape; idKey: number; vocabularyId: number | null; twin: boolean; created: Creation; by: string }
  | { kind: 'update'; pick: number; shape: Shape; modifiedAt: number; by: string }
  | { kind: 'delete'; pick: number }
  | { kind: 'purge'; tenant: 0 | 1 };

interface Batch {
  ops: Op[];
  /** Committed through a second connection to the same file (another process's projector). */
  otherConnection: boolean;
}

const shapeArbitrary: fc.Arbitrary<Shape> = fc.record({
  type: fc.constantFrom(...(v.types as readonly TokenDocument['type'][])),
  containers: fc.uniqueArray(fc.constantFrom(...v.containers), { minLength: 1, maxLength: 3 }),
  metadata: fc.dictionary(fc.constantFrom(...v.metadataKeys), fc.constantFrom(...v.metadataValues), { maxKeys: 2 }),
  data: fc.uniqueArray(fc.constantFrom(...v.dataIndexes.map((value) => value.toLowerCase())), { maxLength: 2 }),
  fingerprint: fc.constantFrom(...v.fingerprints),
  expiresIn: fc.option(fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -120_000, max: 120_000 })), { nil: null, freq: 4 }),
});

/** Offsets from BASE: mostly a few milliseconds apart (many equal), sometimes a minute either way. */
const instantArbitrary = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 4 }), weight: 3 }, { arbitrary: fc.integer({ min: -60_000, max: 60_000 }), weight: 1 }).map((offset) => BASE + offset);

/**
 * When a token is created, against a clock that each in-order creation moves 0 to 3 ms on: in order (ties included);
 * within a few milliseconds of the clock either way (concurrent requests: small inversions); a few milliseconds from
 * BASE (many equal, behind the clock); or up to a minute either way of the clock (far out of rowid order).
 */
type Creation = { kind: 'in-order' | 'jitter' | 'cluster' | 'skewed'; offset: number };
const creationArbitrary: fc.Arbitrary<Creation> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('in-order' as const), offset: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('jitter' as const), offset: fc.integer({ min: -3, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cluster' as const), offset: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('skewed' as const), offset: fc.integer({ min: -60_000, max: 60_000 }) }) },
);

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 24,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      tenant: fc.constantFrom(0 as const, 1 as const),
      shape: shapeArbitrary,
      idKey: fc.nat({ max: 0xffffffff }),
      vocabularyId: fc.option(fc.constantFrom(0, 1), { nil: null, freq: 6 }),
      twin: fc.boolean(),
      created: creationArbitrary,
      by: fc.constantFrom(...v.applications),
    }),
  },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), shape: shapeArbitrary, modifiedAt: instantArbitrary, by: fc.constantFrom(...v.applications) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purge' as const), tenant: fc.constantFrom(0 as const, 1 as const) }) },
);

const historyArbitrary = fc.array(fc.record({ ops: fc.array(opArbitrary, { minLength: 1, maxLength: 10 }), otherConnection: fc.boolean() }), {
  minLength: 1,
  maxLength: 8,
});

const withShape = (doc: TokenDocument, shape: Shape): TokenDocument => ({
  ...doc,
  type: shape.type,
  fingerprint: shape.fingerprint,
  containers: shape.containers,
  metadata: shape.metadata,
  search_hashes: shape.data,
  expires_at: shape.expiresIn === null ? null : iso(NOW + shape.expiresIn),
});

/** Commits the history batch by batch (the reference follows), calling `after` once each batch is committed. */
async function play(vault: Vault, history: Batch[], after: () => Promise<void> = async () => {}): Promise<void> {
  const other = vault.connect();
  let created = 0;
  let clock = BASE;
  const createdAt = (creation: Creation) => {
    if (creation.kind === 'in-order') return (clock += creation.offset);
    return (creation.kind === 'cluster' ? BASE : clock) + creation.offset;
  };
  for (const batch of history) {
    const changes: Change[] = [];
    // The reference map changes only on commit, so this batch's own effects are tracked here to pick from.
    const staged = new Map(vault.docs);
    const stage = (change: Change) => {
      changes.push(change);
      if ('put' in change) staged.set(tokenKey(change.put.tenant_id, change.put.id), change.put);
      else if ('remove' in change) staged.delete(tokenKey(change.remove.tenant_id, change.remove.id));
      else for (const [key, doc] of staged) if (doc.tenant_id === change.purge) staged.delete(key);
    };
    for (const op of batch.ops) {
      const live = [...staged.values()];
      switch (op.kind) {
        case 'create': {
          created += 1;
          const id = op.vocabularyId === null ? uuid(created, op.idKey) : v.ids[op.vocabularyId];
          const at = iso(createdAt(op.created));
          const tenants = op.twin ? [A, B] : [[A, B][op.tenant]];
          for (const tenantId of tenants) {
            // An id is created once per tenant (a second create would be a 409, never a row).
            if (staged.has(tokenKey(tenantId, id))) continue;
            stage({ put: withShape(aToken({ id, tenant_id: tenantId, created_at: at, created_by: op.by }), op.shape) });
          }
          break;
        }
        case 'update':
          if (live.length > 0) {
            const doc = live[op.pick % live.length];
            stage({ put: { ...withShape(doc, op.shape), modified_by: op.by, modified_at: iso(op.modifiedAt) } });
          }
          break;
        case 'delete':
          if (live.length > 0) stage({ remove: live[op.pick % live.length] });
          break;
        case 'purge':
          stage({ purge: [A, B][op.tenant] });
          break;
      }
    }
    await vault.commit(changes, batch.otherConnection ? other : vault.model);
    await after();
  }
}

/** A page probe: a page number (taken modulo the pages there are, plus one past the end) and a size. */
const probesArbitrary = fc.array(fc.tuple(fc.nat(), fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 100 }))), { minLength: 1, maxLength: 3 });

async function expectProbes(index: SqliteTokenSearchIndex, vault: Vault, tenantId: string, query: QueryNode | null, probes: Array<[number, number]>): Promise<void> {
  const total = vault.expected(tenantId, query, NOW).length;
  for (const [seed, size] of probes) await expectPage(index, vault, { tenantId, query, page: 1 + (seed % (Math.ceil(total / size) + 1)), size });
}

const typeOrContainer: fc.Arbitrary<QueryNode> = fc.oneof(
  fc.constantFrom(...v.types).map((value): QueryNode => ({ kind: 'term', field: 'type', value })),
  fc.record({ path: fc.constantFrom(...v.containers), descendants: fc.boolean() }).map((c): QueryNode => ({ kind: 'container', ...c })),
);
const pagingQueryArbitrary: fc.Arbitrary<QueryNode> = fc.oneof(
  typeOrContainer,
  typeOrContainer.map((child): QueryNode => ({ kind: 'not', child })),
  fc.tuple(typeOrContainer, typeOrContainer).map(([a, b]): QueryNode => ({ kind: 'or', children: [a, b] })),
  fc.tuple(typeOrContainer, typeOrContainer).map(([a, b]): QueryNode => ({ kind: 'and', children: [a, { kind: 'not', child: b }] })),
);

const BROAD_POSTINGS = [['every posting in memory', { broadPosting: 1 }], ['the default threshold', {}]] as const;

describe('Search bitmaps: rowid gaps and paging', () => {
  const at = (ms: number) => iso(BASE + ms);
  const id = (c: string) => `00000000-0000-4000-8000-00000000000${c}`;

  // Rows a, b, c, d created at +100, +70, +50, +60 ms; b deleted or updated in between (an update's upsert uses up a
  // rowid, so c and d come after a gap). The bitmaps are built before the change (and then follow it) or after it.
  it.each<[string, 'before' | 'after', 'update' | 'delete']>([
    ['left by an update, bitmaps following it', 'before', 'update'],
    ['left by an update, bitmaps built over it', 'after', 'update'],
    ['left by a delete, bitmaps built over it', 'after', 'delete'],
    ['a deleted row, bitmaps following it (no gap: its creation time stays in the bands)', 'before', 'delete'],
  ])('the first page is the newest token after a rowid gap %s', (_title, built, change) =>
    withVault(async (vault) => {
      const [a, b] = [aToken({ id: id('a'), created_at: at(100) }), aToken({ id: id('b'), created_at: at(70) })];
      await vault.commit([{ put: a }]); // rowid 1, the newest token
      await vault.commit([{ put: b }]); // rowid 2
      let index = built === 'before' ? vault.index() : null;
      if (index) await expectPage(index, vault, { tenantId: A, query: null, size: 1 }); // bitmaps built: rows 1, 2
      await vault.commit([change === 'delete' ? { remove: b } : { put: { ...b, metadata: { k: 'v' } } }]);
      await vault.commit([{ put: aToken({ id: id('c'), created_at: at(50) }) }]);
      await vault.commit([{ put: aToken({ id: id('d'), created_at: at(60) }) }]);
      index ??= vault.index();
      expect(vault.expected(A, null, NOW).map((x) => x.slice(-1))).toEqual(change === 'delete' ? ['a', 'd', 'c'] : ['a', 'b', 'd', 'c']);
      expect((await index.search({ tenantId: A, query: null, now: NOW, page: 1, size: 1 })).items.map((doc) => doc.id)).toEqual([id('a')]);
      for (const size of [1, 2, 3]) await expectEveryPage(index, vault, { tenantId: A, query: null, size });
    }),
  );

  it('orders tokens created in the same millisecond by id, whichever was created first, on every page', () =>
    withVault(async (vault) => {
      const index = vault.index();
      // Rowids 1..8; ids ascending in creation order at +10 ms, descending at +20 ms, mixed at +30 ms.
      const times = [10, 10, 10, 20, 20, 30, 30, 30];
      const keys = [1, 2, 3, 5, 4, 8, 6, 7];
      const docs = times.map((ms, n) => aToken({ id: uuid(n + 1, keys[n]), created_at: at(ms) }));
      await vault.commit(docs.slice(0, 3).map((put) => ({ put })));
      await expectPage(index, vault, { tenantId: A, query: null }); // built over the first tie; the rest followed
      for (const doc of docs.slice(3)) await vault.commit([{ put: doc }]);
      expect(vault.expected(A, null, NOW)).toEqual([7, 8, 6, 5, 4, 1, 2, 3].map((n) => docs[n - 1].id));
      for (const size of [1, 2, 3, 4]) await expectEveryPage(index, vault, { tenantId: A, query: null, size });
    }),
  );

  it('gives every page of random histories as the slice of the reference ordering, with exact totals, live and freshly built', () =>
    fc.assert(
      fc.asyncProperty(historyArbitrary, probesArbitrary, pagingQueryArbitrary, async (history, probes, query) =>
        withVault(async (vault) => {
          const live = BROAD_POSTINGS.map(([, options]) => vault.index(options));
          await play(vault, history, async () => {
            for (const index of live) {
              for (const tenantId of [A, B]) {
                await expectEveryPage(index, vault, { tenantId, query: null, size: 1 });
                await expectProbes(index, vault, tenantId, null, probes);
                await expectProbes(index, vault, tenantId, query, probes);
              }
            }
          });
          const built = BROAD_POSTINGS.map(([, options]) => vault.index(options));
          for (const index of [...live, ...built]) {
            for (const tenantId of [A, B]) {
              for (const size of [1, 3]) await expectEveryPage(index, vault, { tenantId, query: null, size });
              await expectEveryPage(index, vault, { tenantId, query, size: 2 });
            }
          }
        }),
      ),
      { numRuns: 30 },
    ));
});

describe('Search bitmaps: created_at and modified_at ranges', () => {
  /** A bound: open, a committed token's own time of the range's field (or a millisecond either side), or any instant around BASE. */
  type Bound = null | { pick: number; delta: -1 | 0 | 1 } | { at: number };
  const boundArbitrary: fc.Arbitrary<Bound> = fc.oneof(
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.record({ pick: fc.nat(), delta: fc.constantFrom(-1 as const, 0 as const, 0 as const, 1 as const) }), weight: 3 },
    { arbitrary: instantArbitrary.map((at) => ({ at })), weight: 1 },
  );
  const rangeArbitrary = fc.record({
    field: fc.constantFrom('created_at' as const, 'modified_at' as const),
    gte: boundArbitrary,
    lt: boundArbitrary,
    wrap: fc.constantFrom('none', 'not', 'and-type', 'or-container'),
  });

  const resolve = (bound: Bound, pool: number[]): number | null => {
    if (bound === null) return null;
    if ('at' in bound) return bound.at;
    return pool.length === 0 ? BASE : pool[bound.pick % pool.length] + bound.delta;
  };

  it('agrees with the reference evaluator on random [gte, lt) ranges over out-of-order creations and rowid gaps', () =>
    fc.assert(
      fc.asyncProperty(historyArbitrary, fc.array(rangeArbitrary, { minLength: 1, maxLength: 6 }), async (history, ranges) =>
        withVault(async (vault) => {
          const indexes = BROAD_POSTINGS.map(([, options]) => vault.index(options));
          // Every token ever committed lends its times to the bounds, deleted ones too (their rows are gaps now).
          const times = { created_at: [] as number[], modified_at: [] as number[] };
          const check = async () => {
            for (const doc of vault.docs.values()) {
              times.created_at.push(Date.parse(doc.created_at));
              if (doc.modified_at !== null) times.modified_at.push(Date.parse(doc.modified_at));
            }
            for (const range of ranges) {
              const pool = times[range.field].length > 0 ? times[range.field] : times.created_at;
              const date: QueryNode = { kind: 'date', field: range.field, gte: resolve(range.gte, pool), lt: resolve(range.lt, pool) };
              const query: QueryNode =
                range.wrap === 'not'
                  ? { kind: 'not', child: date }
                  : range.wrap === 'and-type'
                    ? { kind: 'and', children: [date, { kind: 'term', field: 'type', value: 'token' }] }
                    : range.wrap === 'or-container'
                      ? { kind: 'or', children: [date, { kind: 'container', path: '/pii/', descendants: true }] }
                      : date;
              for (const index of indexes) for (const tenantId of [A, B]) await expectPage(index, vault, { tenantId, query });
            }
          };
          await play(vault, history, check);
          indexes.push(...BROAD_POSTINGS.map(([, options]) => vault.index(options)));
          await check();
        }),
      ),
      { numRuns: 30 },
    ));

  it.each<[string, string, string[]]>([
    ['a range ending exactly on a token excludes it', 'created_at:[* TO "2024-01-15T10:00:00.005Z"}', ['b', 'c']],
    ['a range starting exactly on a token includes it', 'created_at:["2024-01-15T10:00:00.005Z" TO *]', ['a', 'd']],
    ['a closed range around the out-of-order rows', 'created_at:["2024-01-15T10:00:00.001Z" TO "2024-01-15T10:00:00.005Z"]', ['a', 'd', 'b']],
    ['an empty range', 'created_at:{"2024-01-15T10:00:00.005Z" TO "2024-01-15T10:00:00.005Z"}', []],
    ['modified_at, only tokens that have one', 'modified_at:[* TO *]', ['b', 'c']],
    ['a modified_at range ending exactly on a modification excludes it', 'modified_at:[* TO "2024-01-15T10:00:00.003Z"}', ['b']],
    ['a modified_at range starting exactly on a modification includes it', 'modified_at:["2024-01-15T10:00:00.003Z" TO *]', ['c']],
    ['NOT a modified_at range keeps never-modified tokens', 'NOT modified_at:["2024-01-15T10:00:00.003Z" TO *]', ['a', 'd', 'b']],
  ])('%s: %s', (_title, text, expected) =>
    withVault(async (vault) => {
      const index = vault.index({ broadPosting: 1 });
      const id = (c: string) => `00000000-0000-4000-8000-00000000000${c}`;
      const t = (c: string, ms: number) => aToken({ id: id(c), created_at: iso(BASE + ms) });
      // Rowids 1..4 created at +5, +1, +0, +5 ms; b and c modified later (their upserts use up rowids 5 and 6).
      await vault.commit([{ put: t('a', 5) }, { put: t('b', 1) }, { put: t('c', 0) }, { put: t('d', 5) }]);
      await vault.commit([{ put: { ...t('b', 1), modified_by: v.applications[1], modified_at: iso(BASE + 2) } }]);
      await vault.commit([{ put: { ...t('c', 0), modified_by: v.applications[1], modified_at: iso(BASE + 3) } }]);
      const query = parseQuery(text);
      expect(vault.expected(A, query, NOW)).toEqual(expected.map(id));
      await expectPage(index, vault, { tenantId: A, query });
    }),
  );
});

describe('Search bitmaps: another connection commits', () => {
  it('every index on the first connection sees each create, move, delete and tenant purge exactly, without a rebuild', () =>
    withVault(async (vault) => {
      const other = vault.connect();
      const indexes = [vault.index({ broadPosting: 1 }), vault.index()];
      const followers = [new TokenBitmapFollower(vault.model, 1), new TokenBitmapFollower(vault.model)];
      const queries = [
        null,
        'type:token',
        'type:card_number',
        'NOT type:token',
        'container:"/pii/high/"',
        'container:"/pci/*"',
        'container:"/pii/*" OR metadata.customer:eu',
        'metadata.customer:acme',
        'NOT metadata.customer:acme',
        'data:6789',
        `created_by:${v.applications[1]}`,
        `modified_by:${v.applications[1]}`,
        'modified_at:[* TO *]',
      ].map((text) => (text === null ? null : parseQuery(text)));
      const check = async () => {
        for (const tenantId of [A, B]) {
          for (const query of queries) {
            for (const index of indexes) await expectPage(index, vault, { tenantId, query });
            for (const follower of followers) expectFollowed(vault, follower, tenantId, query);
          }
        }
        expect(followers.map((follower) => follower.buildCount)).toEqual([1, 1]);
      };
      const t = (n: number, overrides: Partial<TokenDocument>) => aToken({ id: uuid(n), created_at: iso(BASE + 10 * n), ...overrides });
      const first = [
        t(1, { containers: ['/pii/high/'], metadata: { customer: 'acme' } }),
        t(2, { type: 'social_security_number', containers: ['/pii/high/'], search_hashes: ['6789'] }),
        t(3, { tenant_id: B, containers: ['/pii/high/'], metadata: { customer: 'acme' } }),
      ];
      await vault.commit(first.map((put) => ({ put })));
      await check(); // built here, from the first connection's commits

      const created = [
        t(4, { containers: ['/pii/high/', '/pci/high/'], metadata: { customer: 'acme' }, created_by: v.applications[1] }),
        t(5, { type: 'card_number', containers: ['/pci/high/'] }),
        t(6, { tenant_id: B, type: 'card_number', containers: ['/pci/high/'], search_hashes: ['6789'] }),
      ];
      await vault.commit(created.map((put) => ({ put })), other);
      await check();

      // A token moves between containers, metadata values and types; another gains data; a third loses its creator's posting.
      const moved = { ...first[0], type: 'card_number' as const, containers: ['/pci/high/'], metadata: { customer: 'eu' }, modified_by: v.applications[1], modified_at: iso(BASE + 500) };
      const gained = { ...first[1], type: 'token' as const, search_hashes: [], metadata: { customer: 'acme' }, modified_by: v.applications[0], modified_at: iso(BASE + 600) };
      await vault.commit([{ put: moved }, { put: gained }], other);
      await check();
      await vault.commit([{ put: { ...moved, type: 'token', containers: ['/pii/high/'], metadata: {} } }], other);
      await check();

      await vault.commit([{ remove: created[0] }, { remove: first[2] }], other);
      await check();

      await vault.commit([{ purge: B }], other);
      expect(vault.live(B)).toEqual([]);
      await check();
      // The purged tenant's id space starts again from nothing.
      await vault.commit([{ put: t(7, { tenant_id: B, containers: ['/pii/high/'] }) }], other);
      await check();
    }));

  it('follows random histories committed by either connection, built before the first commit', () =>
    fc.assert(
      fc.asyncProperty(historyArbitrary, pagingQueryArbitrary, async (history, query) =>
        withVault(async (vault) => {
          const followers = [new TokenBitmapFollower(vault.model, 1), new TokenBitmapFollower(vault.model)];
          for (const follower of followers) follower.current();
          await play(vault, history, async () => {
            for (const follower of followers) {
              for (const tenantId of [A, B]) {
                for (const q of [null, query]) expectFollowed(vault, follower, tenantId, q);
              }
            }
          });
          expect(followers.map((follower) => follower.buildCount)).toEqual([1, 1]);
        }),
      ),
      { numRuns: 30 },
    ));
});

describe('Search bitmaps: a pruned change log', () => {
  it.each<[string, number, number]>([
    // [title, entries pruned past the follower's last seq, builds expected]
    ['pruned up to the follower: it catches up from the log', 0, 1],
    ['pruned past the follower: it rebuilds', 1, 2],
    ['pruned to the last entry: it rebuilds', 5, 2],
  ])('%s', (_title, pastFollower, builds) =>
    withVault(async (vault) => {
      const other = vault.connect();
      const follower = new TokenBitmapFollower(vault.model, 1);
      const indexes = [vault.index({ broadPosting: 1 }), vault.index()];
      const t = (n: number, overrides: Partial<TokenDocument> = {}) => aToken({ id: uuid(n), created_at: iso(BASE + 10 * n), containers: ['/pii/high/'], ...overrides });
      const queries = [null, parseQuery('container:"/pii/high/"'), parseQuery('NOT type:token'), parseQuery('container:"/pci/*"')];
      const check = async () => {
        for (const query of queries) {
          for (const index of indexes) await expectPage(index, vault, { tenantId: A, query });
          expectFollowed(vault, follower, A, query);
        }
      };
      await vault.commit([1, 2, 3].map((n) => ({ put: t(n) })));
      await check();
      const seen = other.database.prepare('SELECT MAX(seq) FROM token_changes').pluck().get() as number;

      // Six more changes (moves, a delete, a create) by the other process, then its pruning.
      await vault.commit([{ put: { ...t(1), type: 'card_number', containers: ['/pci/high/'] } }, { remove: t(2) }], other);
      await vault.commit([{ put: t(4, { type: 'card_number' }) }, { put: t(5) }, { put: { ...t(3), containers: ['/pci/high/'] } }, { remove: t(5) }], other);
      other.database.prepare('DELETE FROM token_changes WHERE seq <= ?').run(seen + pastFollower);
      await vault.commit([{ put: t(6, { type: 'card_number', containers: ['/pci/high/'] }) }], other);
      await check();
      expect(follower.buildCount).toBe(builds);
    }),
  );
});

describe('Search bitmaps: expiry inside the current minute', () => {
  const minute = Math.floor(NOW / 60_000) * 60_000;
  const expiries: Array<[string, number | null, boolean]> = [
    // [name, expires_at, alive at NOW]
    ['never', null, true],
    ['a minute ago', NOW - 60_000, false],
    ['the last ms of the previous minute', minute - 1, false],
    ['the first ms of this minute', minute, false],
    ['now - 1 ms', NOW - 1, false],
    ['now', NOW, false],
    ['now + 1 ms', NOW + 1, true],
    ['the last ms of this minute', minute + 59_999, true],
    ['the first ms of the next minute', minute + 60_000, true],
    ['in an hour', NOW + 3_600_000, true],
  ];

  it.each(BROAD_POSTINGS)('leaves out and does not count exactly the tokens expired at now (%s)', (_title, options) =>
    withVault(async (vault) => {
      const index = vault.index(options);
      const docs = expiries.map(([, at], n) =>
        aToken({ id: uuid(n + 1), created_at: iso(BASE + (n % 3)), type: n % 2 ? 'token' : 'card_number', expires_at: at === null ? null : iso(at) }),
      );
      await vault.commit(docs.slice(0, 5).map((put) => ({ put })));
      await expectPage(index, vault, { tenantId: A, query: null }); // built with half of them; the rest arrive live
      await vault.commit(docs.slice(5).map((put) => ({ put })));
      const alive = docs.filter((_doc, n) => expiries[n][2]).map((doc) => doc.id);
      const got = await index.search({ tenantId: A, query: null, now: NOW, page: 1, size: 100 });
      expect(got.items.map((doc) => doc.id).sort()).toEqual([...alive].sort());
      expect(got.total).toBe(alive.length);
      // The live-tokens-by-type gauge counts the same universe.
      const byType: Record<string, number> = {};
      for (const doc of docs) if (alive.includes(doc.id)) byType[doc.type] = (byType[doc.type] ?? 0) + 1;
      expect(await index.countByType(NOW)).toEqual(byType);
      for (const query of [null, parseQuery('type:token'), parseQuery('NOT type:token'), parseQuery('container:/*')]) {
        await expectEveryPage(index, vault, { tenantId: A, query, size: 1 });
      }
    }),
  );

  it('agrees with the reference at any instant around minute boundaries, expiries on and beside it', () =>
    fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: -90_000, max: 90_000 }), fc.constantFrom(...v.types), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 12 }),
        fc.array(fc.oneof(fc.record({ pick: fc.nat(), delta: fc.constantFrom(-1, 0, 1) }), fc.integer({ min: -120_000, max: 120_000 })), { minLength: 1, maxLength: 6 }),
        async (tokens, instants) =>
          withVault(async (vault) => {
            const indexes = BROAD_POSTINGS.map(([, options]) => vault.index(options));
            const docs = tokens.map(([expiresIn, type, created], n) =>
              aToken({ id: uuid(n + 1), type: type as TokenDocument['type'], created_at: iso(BASE + created), expires_at: iso(NOW + expiresIn) }),
            );
            await vault.commit(docs.map((put) => ({ put })));
            for (const instant of instants) {
              const now = typeof instant === 'number' ? NOW + instant : Date.parse(docs[instant.pick % docs.length].expires_at!) + instant.delta;
              for (const index of indexes) {
                for (const query of [null, parseQuery('type:token'), parseQuery('NOT type:card_number')]) await expectPage(index, vault, { tenantId: A, query, now });
                await expectEveryPage(index, vault, { tenantId: A, query: null, now, size: 2 });
              }
            }
          }),
      ),
      { numRuns: 30 },
    ));
});

describe('Search bitmaps: a posting crossing the in-memory threshold while live', () => {
  it('stays exact as postings grow past broadPosting, shrink back by updates and deletes, and grow again', () =>
    withVault(async (vault) => {
      const threshold = 3;
      const index = vault.index({ broadPosting: threshold });
      const follower = new TokenBitmapFollower(vault.model, threshold);
      const queries = [
        'metadata.tier:gold',
        'NOT metadata.tier:gold',
        'metadata.tier:gold OR type:card_number',
        'container:"/vip/"',
        'container:"/vip/*"',
        'container:"/vip/*" AND NOT container:"/vip/eu/"',
        'NOT container:"/vip/*"',
        'data:6789',
        'NOT data:6789',
      ].map(parseQuery);
      const check = async () => {
        for (const tenantId of [A, B]) {
          for (const query of queries) {
            await expectPage(index, vault, { tenantId, query });
            expectFollowed(vault, follower, tenantId, query);
          }
        }
      };
      let n = 0;
      const gold = (overrides: Partial<TokenDocument> = {}) => {
        n += 1;
        return aToken({
          id: uuid(n),
          created_at: iso(BASE + ((n * 7) % 5)),
          type: 'social_security_number',
          metadata: { tier: 'gold' },
          containers: n % 2 ? ['/vip/'] : ['/vip/', '/vip/eu/'],
          search_hashes: ['6789'],
          ...overrides,
        });
      };
      await vault.commit([{ put: aToken({ id: uuid(100), metadata: { tier: 'silver' } }) }]);
      await check(); // built before any posting is broad

      // One at a time past the threshold, with tenant B's same terms staying below it.
      const members: TokenDocument[] = [];
      for (let i = 0; i < threshold + 2; i++) {
        members.push(gold());
        await vault.commit([{ put: members[members.length - 1] }, ...(i < threshold - 2 ? [{ put: gold({ tenant_id: B }) }] : [])]);
        await check();
      }
      // Shrinks back below the threshold: a member moves out, another is deleted, one moves out of /vip/ only.
      await vault.commit([{ put: { ...members[0], metadata: { tier: 'silver' }, search_hashes: [] } }]);
      await check();
      const plain = { ...members[2], containers: ['/general/high/'], type: 'token' as const };
      await vault.commit([{ remove: members[1] }, { put: plain }]);
      await check();
      await vault.commit([{ remove: members[3] }]);
      await check();
      await vault.commit([{ remove: members[4] }, { put: { ...plain, metadata: {}, search_hashes: [] } }]);
      await check(); // every posting of tenant A emptied
      // And again from nothing, several members arriving in one commit.
      await vault.commit([{ put: gold() }, { put: gold() }, { put: gold() }, { put: gold() }, { put: { ...members[0], metadata: { tier: 'gold' } } }]);
      await check();
      await vault.commit([{ purge: A }]);
      await check();
      await vault.commit([{ put: gold() }]);
      await check();
      expect(follower.buildCount).toBe(1);
    }));
});

describe('Search bitmaps: tenants side by side', () => {
  it.each([...BROAD_POSTINGS, ['a threshold that makes some postings broad in one tenant only', { broadPosting: 2 }] as const])(
    'a tenant never sees or counts another tenant\'s tokens, whatever the query (%s)',
    (_title, options) =>
      fc.assert(
        fc.asyncProperty(historyArbitrary, fc.array(queryNodeArbitrary({ maxDepth: 2, freeText: false }), { minLength: 1, maxLength: 5 }), async (history, queries) =>
          withVault(async (vault) => {
            const index = vault.index(options);
            const fixed = ['NOT type:token', 'NOT container:"/pii/*"', 'container:"/pii/*"', 'container:/*', 'container:"/"', `NOT id:${v.ids[0]}`, `id:${v.ids[1]}`].map(parseQuery);
            await play(vault, history, async () => {
              for (const tenantId of [A, B]) for (const query of [null, ...fixed, ...queries]) await expectPage(index, vault, { tenantId, query });
            });
          }),
        ),
        { numRuns: 20 },
      ),
  );
});

describe('Search bitmaps: the broad_terms list follows the postings', () => {
  it('lists a posting once it grows broad, and drops it once its last token is deleted or moved away', () =>
    withVault(async (vault) => {
      const follower = new TokenBitmapFollower(vault.model, 2);
      const listed = () =>
        (vault.model.database.prepare("SELECT field, value FROM broad_terms WHERE tenant_id = ? AND field <> 'container' ORDER BY 1, 2").raw().all(A) as string[][]).map(
          (row) => row.join('='),
        );
      const save = () => {
        follower.current();
        follower.saveHints();
      };
      save(); // built on an empty file: nothing listed
      const gold = [1, 2, 3].map((n) => aToken({ id: uuid(n), created_at: iso(BASE + n), metadata: { tier: 'gold' }, search_hashes: ['6789'] }));
      await vault.commit(gold.map((doc) => ({ put: doc })));
      save();
      expect(listed()).toEqual(['data=6789', 'metadata.tier=gold']);
      await vault.commit([{ remove: gold[0] }, { put: { ...gold[1], metadata: { tier: 'silver' } } }]);
      save();
      expect(listed()).toEqual(['data=6789', 'metadata.tier=gold']); // gold[2] still holds both
      await vault.commit([{ remove: gold[2] }, { put: { ...gold[1], metadata: {}, search_hashes: [] } }]);
      save();
      expect(listed()).toEqual([]);
    }));
});

describe('Search bitmaps: a tenant purge', () => {
  it("removes the purged tenant's broad_terms rows with its tokens, and leaves the other tenant's", () =>
    withVault(async (vault) => {
      const follower = new TokenBitmapFollower(vault.model, 2);
      const listed = () => vault.model.database.prepare('SELECT tenant_id, field, value FROM broad_terms ORDER BY 1, 2, 3').raw().all() as string[][];
      const save = () => {
        follower.current();
        follower.saveHints();
      };
      save();
      const tokensOf = (tenant: string, from: number) =>
        [0, 1].map((n) => aToken({ id: uuid(from + n), tenant_id: tenant, created_at: iso(BASE + from + n), metadata: { tier: 'gold' }, search_hashes: ['6789'] }));
      await vault.commit([...tokensOf(A, 1), ...tokensOf(B, 11)].map((doc) => ({ put: doc })));
      save();
      const rowsOf = (tenant: string) => [[tenant, 'container', '/general/high/'], [tenant, 'data', '6789'], [tenant, 'metadata.tier', 'gold']];
      expect(listed()).toEqual([...rowsOf(A), ...rowsOf(B)].sort((x, y) => x.join().localeCompare(y.join())));
      await vault.commit([{ purge: B }]);
      // In the purge's own transaction: no follow tick is needed for the values to leave the file.
      expect(listed()).toEqual(rowsOf(A));
      save();
      expect(listed()).toEqual(rowsOf(A));
      expectFollowed(vault, follower, B, null);
      expectFollowed(vault, follower, A, null);
    }));
});

describe('Search bitmaps: listing the broad postings of a whole file (a rebuild, before its swap)', () => {
  it('lists exactly the postings with at least the threshold of tokens, per tenant, and marks the list complete', () =>
    withVault(async (vault) => {
      const docs = [1, 2, 3].map((n) => aToken({ id: uuid(n), created_at: iso(BASE + n), metadata: { tier: n < 3 ? 'gold' : 'silver' } }));
      await vault.commit([...docs.map((doc) => ({ put: doc })), { put: aToken({ id: uuid(9), tenant_id: B, metadata: { tier: 'gold' } }) }]);
      const db = vault.model.database;
      listBroadTerms(db, 2);
      expect(db.prepare('SELECT tenant_id, field, value FROM broad_terms ORDER BY 1, 2, 3').raw().all()).toEqual([
        [A, 'container', '/general/high/'],
        [A, 'metadata.tier', 'gold'],
      ]);
      expect(db.prepare('SELECT key, value FROM token_index_state').raw().all()).toEqual([['broad_terms', 'complete']]);
    }));
});

describe('Search bitmaps: after a rebuild is swapped in', () => {
  const t = (n: number, overrides: Partial<TokenDocument> = {}) => aToken({ id: uuid(n), created_at: iso(BASE + 10 * n), ...overrides });
  const before = [t(1, { containers: ['/pii/high/'] }), t(2, { type: 'social_security_number', search_hashes: ['6789'] }), t(3)];
  // What the rebuilt file holds differs from the old one: a token gone, one changed, new ones in both tenants.
  const rebuilt = [
    t(1, { containers: ['/pci/high/'], metadata: { customer: 'acme' } }),
    t(3),
    t(4, { type: 'card_number', containers: ['/pci/high/'] }),
    t(5, { tenant_id: B, containers: ['/pci/high/'] }),
  ];
  const queries = [null, parseQuery('container:"/pci/high/"'), parseQuery('NOT type:card_number'), parseQuery('data:6789 OR metadata.customer:acme')];

  /** A follower whose builds after a swap read through a real worker thread; `reads` names the files it read. */
  const withFollower = async (vault: Vault, reader: (worker: CountWorker) => SnapshotReader, run: (follower: TokenBitmapFollower) => Promise<void>) => {
    const worker = new CountWorker();
    try {
      await run(new TokenBitmapFollower(vault.model, 1, reader(worker)));
    } finally {
      await worker.close();
    }
  };

  it('builds from the new file on the worker thread, once, and catches up with what was committed while it read', () =>
    withVault(async (vault) => {
      const reads: string[] = [];
      await withFollower(
        vault,
        (worker) => (file, statements) => {
          reads.push(file);
          return worker.snapshot(file, statements);
        },
        async (follower) => {
          await vault.commit(before.map((put) => ({ put })));
          expectFollowed(vault, follower, A, null); // the first build, on the event loop (start-up)
          expect(follower.ready()).toBeNull();
          expect(reads).toEqual([]);

          await vault.swapIn(rebuilt);
          const pending = follower.ready();
          expect(pending).not.toBeNull();
          expect(follower.ready()).toBe(pending); // one build at a time
          // Committed while the worker reads: in its snapshot or caught up from token_changes afterwards.
          await vault.commit([{ put: t(6, { containers: ['/pci/high/'], search_hashes: ['6789'] }) }, { remove: rebuilt[1] }]);
          await pending;

          expect(follower.ready()).toBeNull();
          expect(reads).toEqual([vault.model.path]);
          for (const tenantId of [A, B]) for (const query of queries) expectFollowed(vault, follower, tenantId, query);
          expect(follower.buildCount).toBe(2);
        },
      );
    }));

  it('builds on the event loop instead when the worker fails', () =>
    withVault(async (vault) => {
      await withFollower(
        vault,
        () => async () => {
          throw new Error('worker gone');
        },
        async (follower) => {
          await vault.commit(before.map((put) => ({ put })));
          expectFollowed(vault, follower, A, null);
          await vault.swapIn(rebuilt);
          await follower.ready();
          expect(follower.ready()).toBeNull();
          for (const tenantId of [A, B]) for (const query of queries) expectFollowed(vault, follower, tenantId, query);
          expect(follower.buildCount).toBe(2);
        },
      );
    }));

  it.each(BROAD_POSTINGS)('a search right after the swap waits for the build and answers from the new file (%s)', (_title, options) =>
    withVault(async (vault) => {
      const index = vault.index(options);
      await vault.commit(before.map((put) => ({ put })));
      for (const query of queries) await expectPage(index, vault, { tenantId: A, query });
      await vault.swapIn(rebuilt);
      const searches = queries.flatMap((query) => [A, B].map((tenantId) => expectPage(index, vault, { tenantId, query })));
      await Promise.all(searches);
    }));
});
