// The tokens table of the embedded read model: one row per token (no plaintext: the encrypted envelope stays inside
// `doc`) and one token_terms row per container, metadata pair and data-search hash (token-row.ts), written with the
// token_changes entry the search bitmaps of every process follow.
import type { TokenDocument } from '@vault/application';
import { parseTokenKey } from '@vault/domain';
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';
import type { SqliteCollection } from '../sqlite-collection';
import { listBroadTerms } from './broad-terms';
import { TOKEN_COLUMNS, tokenRows } from './token-row';
import { tokensBulkWriter } from './tokens-bulk';

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
  // A token's tenant and id never change; every other column takes the document's current values.
  const updated = TOKEN_COLUMNS.filter((column) => column !== 'tenant_id' && column !== 'id');
  return {
    upsert: db.prepare(
      `INSERT INTO tokens (${TOKEN_COLUMNS.join(', ')}) VALUES (${TOKEN_COLUMNS.map(() => '?').join(', ')})
       ON CONFLICT (tenant_id, id) DO UPDATE SET ${updated.map((column) => `${column} = excluded.${column}`).join(', ')}
       RETURNING rowid`,
    ),
    rowidOf: db.prepare('SELECT rowid FROM tokens WHERE tenant_id = ? AND id = ?'),
    deleteToken: db.prepare('DELETE FROM tokens WHERE rowid = ?'),
    deleteTerms: db.prepare('DELETE FROM token_terms WHERE token_rowid = ?'),
    logChange: db.prepare('INSERT INTO token_changes (tenant_id, token_rowid) VALUES (?, ?)'),
    pruneChanges: db.prepare('DELETE FROM token_changes WHERE seq <= ?'),
    insertTerm: db.prepare('INSERT INTO token_terms (tenant_id, field, value, token_rowid) VALUES (?, ?, ?, ?)'),
  };
}

const statements = new WeakMap<SqliteDatabase, Statements>();
const statementsFor = (db: SqliteDatabase): Statements => {
  let s = statements.get(db);
  if (!s) statements.set(db, (s = prepare(db)));
  return s;
};

/** Records a change of `rowid` (null: the whole tenant), unless `db` is a rebuild's file. */
function logChange(db: SqliteDatabase, tenantId: string, rowid: number | null): void {
  if (unlogged.has(db)) return;
  const s = statementsFor(db);
  const seq = Number(s.logChange.run(tenantId, rowid).lastInsertRowid);
  if (seq % CHANGE_LOG_PRUNE_EVERY === 0) s.pruneChanges.run(seq - CHANGE_LOG_KEEP);
}

export const tokensTable: SqliteCollection = {
  name: 'tokens',
  schema: SCHEMA,
  derivedFromData: true,
  deferredIndexes: QUERY_INDEXES,
  // Every process reloads its search bitmaps from a swapped-in file, so a rebuild's needs no change log.
  beforeRebuild: (db) => void unlogged.add(db),
  afterRebuild: (db) => listBroadTerms(db),
  bulkWriter: tokensBulkWriter,
  /** `key` is the projection's document key (tenant and id); the row stores both apart, from the document. */
  upsert(db, _key, revision, raw) {
    const doc = raw as unknown as TokenDocument;
    const s = statementsFor(db);
    const { row, postings } = tokenRows(doc, revision);
    const { rowid } = s.upsert.get(...row) as { rowid: number };
    s.deleteTerms.run(rowid);
    for (const [field, value] of postings) s.insertTerm.run(doc.tenant_id, field, value, rowid);
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
