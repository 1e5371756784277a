// Tokens in the embedded read model: one row per token (no plaintext: the encrypted envelope stays inside `doc`) and one
// `token_terms` row per container, metadata pair and data-search hash, which the search compiler queries by index.
import type { Page, TokenDocument, TokenSearchIndex, TokenSearchRequest } from '@vault/application';
import { parseTokenKey } from '@vault/domain';
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';
import type { SqliteCollection } from '../sqlite-collection';
import type { SqliteReadModel } from '../sqlite-read-model';
import { CountWorker } from './count-worker';
import { listBroadTerms, TokenBitmapFollower } from './token-bitmap-follower';

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
-- Covering index for a token's own terms: replacing them on update, and reading them when the search bitmaps catch up.
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

/** How often warmed-up bitmaps apply the commits since the last search. */
const FOLLOW_INTERVAL_MS = 100;

/** How a search ran, for the API's metrics: the in-memory bitmaps answer every search (token-bitmaps.ts). */
export type SqliteSearchPlan = 'bitmaps';

export interface SqliteTokenSearchOptions {
  /** Postings with at least this many tokens are kept in memory (default BROAD_POSTING; tests set 1). */
  broadPosting?: number;
  /** Told after each search which plan it took and how long it ran, in seconds (the API's metrics). */
  onSearch?: (plan: SqliteSearchPlan, seconds: number) => void;
}

export class SqliteTokenSearchIndex implements TokenSearchIndex {
  private readonly onSearch?: (plan: SqliteSearchPlan, seconds: number) => void;
  /** Reads the file off the event loop when the bitmaps are rebuilt after a swap. */
  private readonly reader = new CountWorker();
  private readonly bitmaps: TokenBitmapFollower;
  private bitmapSearch: { db: SqliteDatabase; run: (request: TokenSearchRequest) => Page<TokenDocument> } | null = null;
  private following: NodeJS.Timeout | null = null;

  constructor(
    private readonly model: SqliteReadModel,
    options: SqliteTokenSearchOptions = {},
  ) {
    this.onSearch = options.onSearch;
    this.bitmaps = new TokenBitmapFollower(model, options.broadPosting, (file, statements) => this.reader.snapshot(file, statements));
  }

  /**
   * Builds the search bitmaps now (start-up) rather than on the first search, and from then on catches them up with
   * the file's commits every FOLLOW_INTERVAL_MS (this process's projector's and any other process's), so that no
   * search has a long backlog to apply first.
   */
  warmUp(): void {
    if (this.following) return;
    this.bitmaps.current();
    this.following = setInterval(() => {
      try {
        // After a swap this starts the build off the event loop; the catch-up resumes once it is done.
        if (this.bitmaps.ready() !== null) return;
        this.bitmaps.current();
        this.bitmaps.saveHints();
      } catch {
        // The file is being swapped or closed; the next search or tick tries again.
      }
    }, FOLLOW_INTERVAL_MS);
    this.following.unref();
  }

  async close(): Promise<void> {
    if (this.following) clearInterval(this.following);
    this.following = null;
    await this.reader.close();
  }

  async get(tenantId: string, id: string, now: number): Promise<TokenDocument | null> {
    const row = statementsFor(this.model.database).get.get(tenantId, id.toLowerCase(), now) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async search(request: TokenSearchRequest): Promise<Page<TokenDocument>> {
    if (this.bitmaps.ready() !== null) await this.bitmapsBuilt();
    return this.searchBitmaps(request);
  }

  /** After a swap, until the bitmaps of the new file are built off the event loop (a few tries; then `current` builds). */
  private async bitmapsBuilt(): Promise<void> {
    for (let tries = 0, pending = this.bitmaps.ready(); pending !== null && tries < 3; tries++, pending = this.bitmaps.ready()) await pending;
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
    const bitmaps = this.bitmaps.current();
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

  async expired(now: number, limit: number): Promise<Array<{ id: string; tenant_id: string }>> {
    return statementsFor(this.model.database).expired.all(now, limit) as Array<{ id: string; tenant_id: string }>;
  }

  /** Cardinalities of the bitmaps. */
  async countByType(now: number): Promise<Record<string, number>> {
    await this.bitmapsBuilt();
    return this.bitmaps.current().countByType(now);
  }
}
