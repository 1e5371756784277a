// Tokens in the embedded read model: one row per token (no plaintext: the encrypted envelope stays inside `doc`) and one
// `token_terms` row per container, metadata pair and data-search hash, which the search compiler queries by index.
import type { Page, TokenDocument, TokenSearchIndex, TokenSearchRequest } from '@vault/application';
import { parseTokenKey, type QueryNode } from '@vault/domain';
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';
import type { SqliteCollection } from '../sqlite-collection';
import type { SqliteReadModel } from '../sqlite-read-model';
import { CountWorker } from './count-worker';
import { compileTokenQuery, TermLookup } from './sqlite-token-sql';
import { listBroadTerms, TokenBitmapFollower } from './token-bitmap-follower';

/** Terms matching fewer tokens than this drive a query from token_terms; broader ones are checked row by row. */
const SELECTIVE_LIMIT = 2000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tokens (
  -- AUTOINCREMENT: rowids follow the log and are never reused, so they number the search bitmaps (token-bitmaps.ts).
  rowid INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL,
  tenant_id TEXT NOT NULL,
  type TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  created_by_l TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  modified_by_l TEXT,
  modified_at_ms INTEGER,
  expires_at_ms INTEGER,
  revision INTEGER NOT NULL,
  doc TEXT NOT NULL,
  -- Token ids are unique within a tenant only.
  UNIQUE (tenant_id, id)
);
CREATE TABLE IF NOT EXISTS token_terms (
  tenant_id TEXT NOT NULL,
  field TEXT NOT NULL,
  value TEXT NOT NULL,
  token_rowid INTEGER NOT NULL
);
-- Covering index for a token's own terms: replacing them on update, and NOT EXISTS checks per candidate row.
CREATE INDEX IF NOT EXISTS token_terms_of_token ON token_terms (token_rowid, field, value);
-- Which token rows changed, in commit order (no value of the row): how the search bitmaps of every process using
-- this file follow the commits (token-bitmap-follower.ts). A tenant purge has no rowid. Pruned to the last
-- CHANGE_LOG_KEEP entries; a process further behind rebuilds its bitmaps.
CREATE TABLE IF NOT EXISTS token_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  token_rowid INTEGER
);
-- The token_terms postings the bitmaps keep in memory (at least BROAD_POSTING tokens once), so that start-up loads
-- them without counting every posting; \`complete\` in token_index_state once it was computed from the whole file.
CREATE TABLE IF NOT EXISTS broad_terms (
  tenant_id TEXT NOT NULL,
  field TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (tenant_id, field, value)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS token_index_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Entries of token_changes kept; pruned every CHANGE_LOG_PRUNE_EVERY entries. */
const CHANGE_LOG_KEEP = 200_000;
const CHANGE_LOG_PRUNE_EVERY = 4096;

/** Files written without a change log: a rebuild's fresh file, which every process reloads whole after the swap. */
const unlogged = new WeakSet<SqliteDatabase>();
export function withoutTokenChangeLog(db: SqliteDatabase): void {
  unlogged.add(db);
}

// The query indexes. A rebuild creates them after the replay: building an index from sorted rows at the end is far
// faster than inserting every row into it in random order.
const QUERY_INDEXES = `
CREATE INDEX IF NOT EXISTS tokens_tenant_created ON tokens (tenant_id, created_at_ms DESC, id, expires_at_ms);
CREATE INDEX IF NOT EXISTS tokens_tenant_fingerprint ON tokens (tenant_id, fingerprint, type);
CREATE INDEX IF NOT EXISTS tokens_tenant_type ON tokens (tenant_id, type, created_at_ms DESC, expires_at_ms);
CREATE INDEX IF NOT EXISTS tokens_expiry ON tokens (expires_at_ms) WHERE expires_at_ms IS NOT NULL;
-- What the search bitmaps are built from, without reading the documents: every row's grouping columns and creation
-- time, and the few rows that were modified or expire.
CREATE INDEX IF NOT EXISTS tokens_columns ON tokens (tenant_id, type, created_by_l, created_at_ms);
CREATE INDEX IF NOT EXISTS tokens_modified ON tokens (tenant_id, modified_by_l, modified_at_ms) WHERE modified_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS tokens_expiring ON tokens (tenant_id, expires_at_ms) WHERE expires_at_ms IS NOT NULL;
CREATE INDEX IF NOT EXISTS token_terms_lookup ON token_terms (tenant_id, field, value, token_rowid);
`;

type Statements = ReturnType<typeof prepare>;

function prepare(db: SqliteDatabase) {
  return {
    upsert: db.prepare(
      `INSERT INTO tokens (id, tenant_id, type, fingerprint, created_by_l, created_at_ms, modified_by_l, modified_at_ms, expires_at_ms, revision, doc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant_id, id) DO UPDATE SET type = excluded.type, fingerprint = excluded.fingerprint,
         created_by_l = excluded.created_by_l, created_at_ms = excluded.created_at_ms, modified_by_l = excluded.modified_by_l,
         modified_at_ms = excluded.modified_at_ms, expires_at_ms = excluded.expires_at_ms, revision = excluded.revision, doc = excluded.doc
       RETURNING rowid`,
    ),
    rowidOf: db.prepare('SELECT rowid FROM tokens WHERE tenant_id = ? AND id = ?'),
    deleteToken: db.prepare('DELETE FROM tokens WHERE rowid = ?'),
    deleteTerms: db.prepare('DELETE FROM token_terms WHERE token_rowid = ?'),
    logChange: db.prepare('INSERT INTO token_changes (tenant_id, token_rowid) VALUES (?, ?)'),
    pruneChanges: db.prepare('DELETE FROM token_changes WHERE seq <= ?'),
    insertTerm: db.prepare('INSERT INTO token_terms (tenant_id, field, value, token_rowid) VALUES (?, ?, ?, ?)'),
    get: db.prepare('SELECT doc FROM tokens WHERE tenant_id = ? AND id = ? AND (expires_at_ms IS NULL OR expires_at_ms > ?)'),
    expired: db.prepare('SELECT id, tenant_id FROM tokens WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ? ORDER BY expires_at_ms, id LIMIT ?'),
  };
}

const statements = new WeakMap<SqliteDatabase, Statements>();
const statementsFor = (db: SqliteDatabase): Statements => {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = prepare(db)));
  return s;
};

const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/** A token row's values after its rowid, in the tokens table's column order (the upsert and a rebuild's bulk rows). */
export function tokenRowValues(doc: TokenDocument, revision: bigint): Array<string | number | null> {
  return [
    doc.id.toLowerCase(),
    doc.tenant_id,
    doc.type.toLowerCase(),
    doc.fingerprint,
    doc.created_by.toLowerCase(),
    ms(doc.created_at),
    doc.modified_by?.toLowerCase() ?? null,
    ms(doc.modified_at),
    ms(doc.expires_at),
    Number(revision),
    JSON.stringify(doc),
  ];
}

/** Records a change of `rowid` (null: the whole tenant), unless `db` is a rebuild's file. */
function logChange(db: SqliteDatabase, tenantId: string, rowid: number | null): void {
  if (unlogged.has(db)) return;
  const s = statementsFor(db);
  const seq = Number(s.logChange.run(tenantId, rowid).lastInsertRowid);
  if (seq % CHANGE_LOG_PRUNE_EVERY === 0) s.pruneChanges.run(seq - CHANGE_LOG_KEEP);
}

/** Each (field, value) once: keys differing only in case, or repeated hashes, need one row. */
export function termsOf(doc: TokenDocument): Array<[string, string]> {
  const terms = new Map<string, [string, string]>();
  const add = (field: string, value: string) => terms.set(`${field}\u0000${value}`, [field, value]);
  for (const c of doc.containers) add('container', c.toLowerCase());
  for (const [k, v] of Object.entries(doc.metadata)) add(`metadata.${k.toLowerCase()}`, v.toLowerCase());
  for (const h of doc.search_hashes) add('data', h.toLowerCase());
  return [...terms.values()];
}

export const tokensTable: SqliteCollection = {
  name: 'tokens',
  schema: SCHEMA,
  derivedFromData: true,
  deferredIndexes: QUERY_INDEXES,
  afterRebuild: (db) => listBroadTerms(db),
  /** `key` is the projection's document key (tenant and id); the row stores both apart, from the document. */
  upsert(db, _key, revision, raw) {
    const doc = raw as unknown as TokenDocument;
    const s = statementsFor(db);
    const { rowid } = s.upsert.get(...tokenRowValues(doc, revision)) as { rowid: number };
    s.deleteTerms.run(rowid);
    for (const [field, value] of termsOf(doc)) s.insertTerm.run(doc.tenant_id, field, value, rowid);
    logChange(db, doc.tenant_id, rowid);
  },
  purgeTenant(db, tenantId) {
    statement(db, 'DELETE FROM token_terms WHERE tenant_id = ?').run(tenantId);
    statement(db, 'DELETE FROM tokens WHERE tenant_id = ?').run(tenantId);
    statement(db, 'DELETE FROM broad_terms WHERE tenant_id = ?').run(tenantId);
    logChange(db, tenantId, null);
  },
  remove(db, key) {
    const s = statementsFor(db);
    const { tenantId, id } = parseTokenKey(key);
    const row = s.rowidOf.get(tenantId, id.toLowerCase()) as { rowid: number } | undefined;
    if (!row) return;
    s.deleteTerms.run(row.rowid);
    s.deleteToken.run(row.rowid);
    logChange(db, tenantId, row.rowid);
  },
  load(db, keys) {
    if (keys.length === 0) return [];
    const pairs = keys.map((key) => {
      const { tenantId, id } = parseTokenKey(key);
      return { key, tenant: tenantId, id: id.toLowerCase() };
    });
    return statement(
      db,
      `SELECT json_extract(k.value, '$.key') AS id, t.revision, t.doc FROM json_each(?) k
       JOIN tokens t ON t.tenant_id = json_extract(k.value, '$.tenant') AND t.id = json_extract(k.value, '$.id')`,
    ).all(JSON.stringify(pairs)) as Array<{ id: string; revision: number; doc: string }>;
  },
};

const COUNT_CACHE_SIZE = 1000;
/** How often warmed-up bitmaps apply the commits since the last search. */
const FOLLOW_INTERVAL_MS = 100;
/**
 * A query with more terms than this (the caller's and the access scope's together) is run on the worker thread, count
 * and page alike: each row can cost a lookup per term (NOT compiles to correlated EXISTS), so a 100-term query over a
 * few thousand tokens would hold the event loop for hundreds of milliseconds.
 */
const WORKER_TERMS = 8;
const COUNT_INLINE_LIMIT = 5000;
/** Selectivity answers are recomputed after this many token changes. */
const SELECTIVITY_REFRESH = 10_000;

/**
 * How a search ran: `bitmaps` when the in-memory bitmaps answered it (token-bitmaps.ts); with the SQL engine, `terms` when a selective term drove the page query from token_terms, `scan` when SQLite walked the
 * tenant's tokens in created_at order checking each; `-worker` when its count or page ran on the worker thread.
 */
export type SqliteSearchPlan = 'bitmaps' | 'terms' | 'scan' | 'terms-worker' | 'scan-worker';

export interface SqliteTokenSearchOptions {
  /**
   * `bitmaps` (default): queries are set algebra on roaring bitmaps kept in memory; `sql`: the query compiles to SQL
   * over the token tables (the engine before the bitmaps; tests hold both to the same corpus).
   */
  engine?: 'bitmaps' | 'sql';
  /** With bitmaps: postings with at least this many tokens are kept in memory (default BROAD_POSTING; tests set 1). */
  broadPosting?: number;
  /** Terms matching fewer tokens than this drive a query from token_terms (tests set 0 to force the other plan). */
  selectiveLimit?: number;
  /** Counts up to this many matches on the event loop; broader ones on a worker thread (tests set 0 to force it). */
  countInlineLimit?: number;
  /** Told after each search which plan it took and how long it ran, in seconds (the API's metrics). */
  onSearch?: (plan: SqliteSearchPlan, seconds: number) => void;
}

export class SqliteTokenSearchIndex implements TokenSearchIndex {
  private readonly counts = new Map<string, { stamp: number; computedAt: number; validUntil: number; total: number }>();
  private readonly selectiveLimit: number;
  private readonly countInlineLimit: number;
  private readonly onSearch?: (plan: SqliteSearchPlan, seconds: number) => void;
  private readonly bitmaps: TokenBitmapFollower | null;
  private bitmapSearch: { db: SqliteDatabase; run: (request: TokenSearchRequest) => Page<TokenDocument> } | null = null;

  constructor(
    private readonly model: SqliteReadModel,
    options: SqliteTokenSearchOptions = {},
  ) {
    this.selectiveLimit = options.selectiveLimit ?? SELECTIVE_LIMIT;
    this.countInlineLimit = options.countInlineLimit ?? COUNT_INLINE_LIMIT;
    this.onSearch = options.onSearch;
    this.bitmaps =
      (options.engine ?? 'bitmaps') === 'bitmaps'
        ? new TokenBitmapFollower(model, options.broadPosting, (file, statements) => this.counter.snapshot(file, statements))
        : null;
  }

  private following: NodeJS.Timeout | null = null;

  /**
   * Builds the search bitmaps now (start-up) rather than on the first search, and from then on catches them up with
   * the file's commits every FOLLOW_INTERVAL_MS (this process's projector's and any other process's), so that no
   * search has a long backlog to apply first.
   */
  warmUp(): void {
    if (!this.bitmaps || this.following) return;
    this.bitmaps.current();
    this.following = setInterval(() => {
      try {
        // After a swap this starts the build off the event loop; the catch-up resumes once it is done.
        if (this.bitmaps!.ready() !== null) return;
        this.bitmaps!.current();
        this.bitmaps!.saveHints();
      } catch {
        // The file is being swapped or closed; the next search or tick tries again.
      }
    }, FOLLOW_INTERVAL_MS);
    this.following.unref();
  }

  private readonly counter = new CountWorker();
  private readonly selectivity = new Map<string, boolean>();
  private selectivityStamp = 0;

  async close(): Promise<void> {
    if (this.following) clearInterval(this.following);
    this.following = null;
    await this.counter.close();
  }

  async get(tenantId: string, id: string, now: number): Promise<TokenDocument | null> {
    const row = statementsFor(this.model.database).get.get(tenantId, id.toLowerCase(), now) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async search(request: TokenSearchRequest): Promise<Page<TokenDocument>> {
    if (this.bitmaps) {
      if (this.bitmaps.ready() !== null) await this.bitmapsBuilt();
      return this.searchBitmaps(request);
    }
    return this.searchSql(request);
  }

  /** After a swap, until the bitmaps of the new file are built off the event loop (a few tries; then `current` builds). */
  private async bitmapsBuilt(): Promise<void> {
    for (let tries = 0, pending = this.bitmaps!.ready(); pending !== null && tries < 3; tries++, pending = this.bitmaps!.ready()) await pending;
  }

  /** The query as set algebra: microseconds for AND/OR/NOT of any breadth, an exact total, a page from the end. */
  private searchBitmaps(request: TokenSearchRequest): Page<TokenDocument> {
    const started = process.hrtime.bigint();
    const db = this.model.database;
    // One read transaction: the catch-up, the selective postings and the page's rows all see one committed state,
    // whichever process commits meanwhile. Made once per file: better-sqlite3 builds its wrappers on every call.
    if (this.bitmapSearch?.db !== db) this.bitmapSearch = { db, run: db.transaction((r: TokenSearchRequest) => this.bitmapPage(db, r)) };
    const answer = this.bitmapSearch.run(request);
    this.onSearch?.('bitmaps', Number(process.hrtime.bigint() - started) / 1e9);
    return answer;
  }

  private bitmapPage(db: SqliteDatabase, { tenantId, query, now, page, size }: TokenSearchRequest): Page<TokenDocument> {
    const bitmaps = this.bitmaps!.current();
    const result = bitmaps.evaluate(tenantId, query, now);
    const docs = new Map<number, string>();
    const rowids = bitmaps.page(result, (page - 1) * size, size, (window) => {
      const rows = statement(db, 'SELECT rowid, id, created_at_ms, doc FROM tokens WHERE rowid IN (SELECT value FROM json_each(?))').all(
        JSON.stringify(window),
      ) as Array<{ rowid: number; id: string; created_at_ms: number; doc: string }>;
      for (const row of rows) docs.set(row.rowid, row.doc);
      return rows;
    });
    return { total: result.size, items: rowids.map((rowid) => JSON.parse(docs.get(rowid)!) as TokenDocument) };
  }

  private async searchSql({ tenantId, query, now, page, size }: TokenSearchRequest): Promise<Page<TokenDocument>> {
    const started = process.hrtime.bigint();
    const db = this.model.database;
    const { page: pageQuery, count, termsDriven } = this.sql(db, tenantId, query, now);
    const offWorker = query !== null && leavesOf(query) > WORKER_TERMS;
    const { total, onWorker } = await this.count(db, count.sql, count.params, now, offWorker);
    const done = (result: Page<TokenDocument>) => {
      const plan: SqliteSearchPlan = `${termsDriven ? 'terms' : 'scan'}${offWorker || onWorker ? '-worker' : ''}`;
      this.onSearch?.(plan, Number(process.hrtime.bigint() - started) / 1e9);
      return result;
    };
    const offset = (page - 1) * size;
    if (offset >= total) return done({ total, items: [] });
    // A deep page is read from the other end: OFFSET walks every skipped row, so the shorter walk wins.
    const fromEnd = offset > total / 2;
    const [sql, params] = fromEnd
      ? [
          `SELECT t.doc FROM tokens t WHERE ${pageQuery.sql} ORDER BY t.created_at_ms ASC, t.id DESC LIMIT ? OFFSET ?`,
          [...pageQuery.params, Math.min(size, total - offset), Math.max(0, total - offset - size)],
        ]
      : [`SELECT t.doc FROM tokens t WHERE ${pageQuery.sql} ORDER BY t.created_at_ms DESC, t.id LIMIT ? OFFSET ?`, [...pageQuery.params, size, offset]];
    const here = () => statement(db, sql).all(...params) as Array<{ doc: string }>;
    // A costly page is read on the worker too; without one (it failed to start or died) it is read here.
    const rows = offWorker ? await this.counter.rows<{ doc: string }>(this.model.path, sql, params).catch(here) : here();
    if (fromEnd) rows.reverse();
    return done({ total, items: rows.map((r) => JSON.parse(r.doc)) });
  }

  /** SQLite's plan for a search's count and first page (EXPLAIN QUERY PLAN details), to check which indexes it uses. */
  explain(tenantId: string, query: QueryNode | null, now: number): { count: string[]; page: string[] } {
    const db = this.model.database;
    const { page, count } = this.sql(db, tenantId, query, now);
    const plan = (sql: string, params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail);
    return {
      count: plan(`SELECT COUNT(*) AS n FROM tokens t WHERE ${count.sql}`, count.params),
      page: plan(`SELECT t.doc FROM tokens t WHERE ${page.sql} ORDER BY t.created_at_ms DESC, t.id LIMIT 20`, page.params),
    };
  }

  /**
   * The WHERE clauses of a search. The tenant and expiry conditions stand outside the compiled query, so no query text
   * can widen them. Counting visits every match anyway, so it always drives from token_terms (one pass over the
   * matching index range); the page query uses the adaptive plan, so a broad page stops after 20 rows.
   */
  private sql(db: SqliteDatabase, tenantId: string, query: QueryNode | null, now: number) {
    const scoped = (condition: { sql: string; params: unknown[] }) => ({
      sql: `t.tenant_id = ? AND (t.expires_at_ms IS NULL OR t.expires_at_ms > ?) AND (${condition.sql})`,
      params: [tenantId, now, ...condition.params],
    });
    const all = { sql: '1', params: [] };
    // The compiler asks about each term it could drive the query from; one selective answer makes the plan terms-driven.
    let termsDriven = false;
    const selective = (lookup: TermLookup) => {
      const answer = this.selective(db, tenantId, lookup);
      termsDriven ||= answer;
      return answer;
    };
    return {
      page: scoped(query ? compileTokenQuery(query, tenantId, { selective }) : all),
      count: scoped(query ? compileTokenQuery(query, tenantId) : all),
      termsDriven,
    };
  }

  /**
   * The exact number of matches. Counting a broad query walks every match, so the result is kept until a token
   * changes (this process's projector is the only writer) or the next token expires, whichever comes first.
   */
  private async count(db: SqliteDatabase, where: string, params: unknown[], now: number, offWorker = false): Promise<{ total: number; onWorker: boolean }> {
    const key = `${where}\u0000${JSON.stringify(params.slice(2))}\u0000${params[0]}`;
    const stamp = this.model.changeStamp('tokens');
    const cached = this.counts.get(key);
    if (cached && cached.stamp === stamp && now < cached.validUntil && now >= cached.computedAt) return { total: cached.total, onWorker: false };
    // Up to countInlineLimit matches are counted right here (bounded work); a broader count, or one whose every row is
    // costly, goes to the worker thread.
    const bounded = offWorker
      ? this.countInlineLimit
      : (statement(db, `SELECT COUNT(*) AS n FROM (SELECT 1 FROM tokens t WHERE ${where} LIMIT ?)`).get(...params, this.countInlineLimit) as { n: number }).n;
    const onWorker = bounded >= this.countInlineLimit;
    const total = !onWorker
      ? bounded
      : await this.counter.count(this.model.path, `SELECT COUNT(*) AS n FROM tokens t WHERE ${where}`, params).catch(
          // Without a worker (it failed to start or died), count here rather than fail the search.
          () => (statement(this.model.database, `SELECT COUNT(*) AS n FROM tokens t WHERE ${where}`).get(...params) as { n: number }).n,
        );
    if (this.model.changeStamp('tokens') !== stamp) return { total, onWorker };
    const next = statement(db, 'SELECT MIN(expires_at_ms) AS at FROM tokens WHERE expires_at_ms > ?').get(now) as { at: number | null };
    if (this.counts.size >= COUNT_CACHE_SIZE) this.counts.delete(this.counts.keys().next().value!);
    this.counts.set(key, { stamp, computedAt: now, validUntil: next.at ?? Number.POSITIVE_INFINITY, total });
    return { total, onWorker };
  }

  /** A term is selective when it matches fewer than SELECTIVE_LIMIT index entries; counting stops there, so it is cheap. */
  private selective(db: SqliteDatabase, tenantId: string, lookup: TermLookup): boolean {
    if (this.selectiveLimit <= 0) return false;
    // Whether a term is selective changes only as tokens change; the answer is a plan hint, so a stale one is harmless.
    const key = `${tenantId}\u0000${JSON.stringify(lookup)}`;
    const stamp = this.model.changeStamp('tokens');
    if (stamp - this.selectivityStamp > SELECTIVITY_REFRESH) {
      this.selectivity.clear();
      this.selectivityStamp = stamp;
    }
    const known = this.selectivity.get(key);
    if (known !== undefined) return known;
    const row = (
      'value' in lookup
        ? statement(db, `SELECT COUNT(*) AS n FROM (SELECT 1 FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ? LIMIT ?)`).get(
            tenantId,
            lookup.field,
            lookup.value,
            this.selectiveLimit,
          )
        : statement(
            db,
            `SELECT COUNT(*) AS n FROM (SELECT 1 FROM token_terms WHERE tenant_id = ? AND field = 'container' AND value >= ? AND value < ? LIMIT ?)`,
          ).get(tenantId, lookup.from, lookup.to, this.selectiveLimit)
    ) as { n: number };
    const selective = row.n < this.selectiveLimit;
    if (this.selectivity.size >= COUNT_CACHE_SIZE) this.selectivity.delete(this.selectivity.keys().next().value!);
    this.selectivity.set(key, selective);
    return selective;
  }

  async expired(now: number, limit: number): Promise<Array<{ id: string; tenant_id: string }>> {
    return statementsFor(this.model.database).expired.all(now, limit) as Array<{ id: string; tenant_id: string }>;
  }

  /** Cardinalities of the bitmaps; with the SQL engine one pass over every token, on the worker thread (here only when the worker is unavailable). */
  async countByType(now: number): Promise<Record<string, number>> {
    if (this.bitmaps) {
      await this.bitmapsBuilt();
      return this.bitmaps.current().countByType(now);
    }
    const sql = 'SELECT type, COUNT(*) AS n FROM tokens WHERE expires_at_ms IS NULL OR expires_at_ms > ? GROUP BY type';
    const here = () => statement(this.model.database, sql).all(now) as Array<{ type: string; n: number }>;
    const rows = await this.counter.rows<{ type: string; n: number }>(this.model.path, sql, [now]).catch(here);
    return Object.fromEntries(rows.map((row) => [row.type, row.n]));
  }
}

/** How many terms (leaves) a query has. */
function leavesOf(node: QueryNode): number {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.children.reduce((sum, child) => sum + leavesOf(child), 0);
    case 'not':
      return leavesOf(node.child);
    default:
      return 1;
  }
}
