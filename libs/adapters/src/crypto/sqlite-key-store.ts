// The KeyStore on SQLite: one small `keys.sqlite` file beside (never inside) the event log. It is also the adapter
// for the EventStoreDB/Meilisearch deployment, on a mounted volume: the keys must stay out of the event store,
// whose deletes are soft until a scavenge, and a volume that is backed up apart from the log keeps shredding real.
import { join } from 'node:path';
import type { KeyStore, TenantKeyRecord, TenantKeyStore } from '@vault/application';
import { openDatabase, type SqliteDatabase } from '../sqlite/open-database';

export const KEY_STORE_FILE = 'keys.sqlite';

interface KeyRow {
  wrapped_key: Buffer;
}

interface PendingPut {
  tenantId: string;
  tokenId: string;
  wrappedKey: Buffer;
  resolve(stored: Uint8Array): void;
  reject(error: unknown): void;
}

interface TenantKeyRow {
  wrapped_key: Buffer | null;
  derived: number;
  destroyed: number;
}

const KEY_STORE_CACHE_MIB = 8;

/** Data keys of a destroyed tenant removed per transaction, so the write lock is never held for long. */
const PURGE_CHUNK = 2_000;

export class SqliteKeyStore implements KeyStore, TenantKeyStore {
  private readonly statements;
  private readonly tenantStatements;
  private readonly purging = new Set<string>();
  private closed = false;
  private readonly putAllAndRead;
  private readonly shredAll;
  /** Puts waiting for the next group commit: one fsync covers every key created in the same turn of the event loop. */
  private pending: PendingPut[] = [];

  constructor(private readonly db: SqliteDatabase) {
    // Freed cells and pages are zeroed, so a deleted key's bytes do not linger in the file's free space.
    db.pragma('secure_delete = ON');
    db.exec(`
      CREATE TABLE IF NOT EXISTS data_keys (
        tenant_id TEXT NOT NULL,
        token_id TEXT NOT NULL,
        wrapped_key BLOB NOT NULL,
        PRIMARY KEY (tenant_id, token_id)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS shred_checkpoint (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        position TEXT NOT NULL
      );
    `);
    // Tenant keys came after data keys: a file without the table has tenants whose data keys were wrapped by keys
    // derived from the master key. Each such tenant is recorded as derived in the same transaction that creates it.
    const hadTenantKeys = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tenant_keys'").get() !== undefined;
    db.transaction(() => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS tenant_keys (
          tenant_id TEXT PRIMARY KEY,
          wrapped_key BLOB,
          derived INTEGER NOT NULL DEFAULT 0,
          destroyed INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
      `);
      if (!hadTenantKeys) db.exec('INSERT OR IGNORE INTO tenant_keys (tenant_id, wrapped_key, derived) SELECT DISTINCT tenant_id, NULL, 1 FROM data_keys');
    }).immediate();
    this.statements = {
      insert: db.prepare<[string, string, Buffer]>(
        'INSERT INTO data_keys (tenant_id, token_id, wrapped_key) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      get: db.prepare<[string, string], KeyRow>('SELECT wrapped_key FROM data_keys WHERE tenant_id = ? AND token_id = ?'),
      getMany: db.prepare<[json: string, tenantId: string], KeyRow & { token_id: string }>(
        // CROSS JOIN keeps the ids outside: one primary-key lookup each (the planner would otherwise scan the keys).
        'SELECT d.token_id, d.wrapped_key FROM json_each(?) j CROSS JOIN data_keys d ON d.tenant_id = ? AND d.token_id = j.value',
      ),
      delete: db.prepare<[string, string]>('DELETE FROM data_keys WHERE tenant_id = ? AND token_id = ?'),
      checkpoint: db.prepare<[], { position: string }>('SELECT position FROM shred_checkpoint WHERE one = 1'),
      saveCheckpoint: db.prepare<[string]>(
        'INSERT INTO shred_checkpoint (one, position) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET position = excluded.position',
      ),
    };
    this.tenantStatements = {
      get: db.prepare<[string], TenantKeyRow>('SELECT wrapped_key, derived, destroyed FROM tenant_keys WHERE tenant_id = ?'),
      insert: db.prepare<[string, Buffer]>('INSERT INTO tenant_keys (tenant_id, wrapped_key) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      destroy: db.prepare<[string]>(
        `INSERT INTO tenant_keys (tenant_id, wrapped_key, destroyed) VALUES (?, NULL, 1)
         ON CONFLICT (tenant_id) DO UPDATE SET wrapped_key = NULL, destroyed = 1`,
      ),
      destroyedWithKeys: db.prepare<[], { tenant_id: string }>(
        'SELECT tenant_id FROM tenant_keys t WHERE destroyed = 1 AND EXISTS (SELECT 1 FROM data_keys d WHERE d.tenant_id = t.tenant_id)',
      ),
      purgeChunk: db.prepare<[string, string, number]>(
        `DELETE FROM data_keys WHERE tenant_id = ? AND token_id IN (SELECT token_id FROM data_keys WHERE tenant_id = ? LIMIT ?)`,
      ),
    };
    this.shredAll = db.transaction((keys: ReadonlyArray<{ tenantId: string; tokenId: string }>, position: string): number => {
      let destroyed = 0;
      for (const { tenantId, tokenId } of keys) destroyed += this.statements.delete.run(tenantId, tokenId).changes;
      this.statements.saveCheckpoint.run(position);
      return destroyed;
    });
    this.putAllAndRead = db.transaction((puts: PendingPut[]): Buffer[] =>
      puts.map(({ tenantId, tokenId, wrappedKey }) => {
        this.statements.insert.run(tenantId, tokenId, wrappedKey);
        return this.statements.get.get(tenantId, tokenId)!.wrapped_key;
      }),
    );
  }

  /**
   * Opens (creating when needed) `<dataDir>/keys.sqlite`. `normal` (the default, like the event log) survives a killed
   * process; `full` fsyncs every (group) commit and also survives power loss (VAULT_SYNC=full).
   */
  static open(dataDir: string, synchronous: 'normal' | 'full' = 'normal'): SqliteKeyStore {
    // The inner pages of a million tokens' data keys are about 4 MB: kept in the page cache, a key read is one page.
    const store = new SqliteKeyStore(openDatabase(join(dataDir, KEY_STORE_FILE), { synchronous, cacheMiB: KEY_STORE_CACHE_MIB }));
    // A purge interrupted by a stop goes on.
    for (const { tenant_id } of store.tenantStatements.destroyedWithKeys.all()) store.purgeDataKeys(tenant_id);
    return store;
  }

  tenantKey(tenantId: string): TenantKeyRecord | null {
    return toRecord(this.tenantStatements.get.get(tenantId));
  }

  createTenantKey(tenantId: string, wrapped: Uint8Array): TenantKeyRecord {
    this.tenantStatements.insert.run(tenantId, Buffer.from(wrapped));
    return toRecord(this.tenantStatements.get.get(tenantId))!;
  }

  destroyTenantKey(tenantId: string): void {
    this.tenantStatements.destroy.run(tenantId);
    // As for a data key: the zeroed page reaches the file and the WAL frames that held the key are emptied.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.purgeDataKeys(tenantId);
  }

  /** Removes a destroyed tenant's data keys a chunk per turn of the event loop. */
  private purgeDataKeys(tenantId: string): void {
    if (this.purging.has(tenantId)) return;
    this.purging.add(tenantId);
    const step = () => {
      if (this.closed) return;
      try {
        const removed = this.tenantStatements.purgeChunk.run(tenantId, tenantId, PURGE_CHUNK).changes;
        if (removed > 0) {
          setImmediate(step);
          return;
        }
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        // Busy or closing: the next open resumes it (destroyedWithKeys).
      }
      this.purging.delete(tenantId);
    };
    setImmediate(step);
  }

  put(tenantId: string, tokenId: string, wrappedKey: Uint8Array): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.pending.push({ tenantId, tokenId, wrappedKey: Buffer.from(wrappedKey), resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Group commit: inserts and reads back every pending key under one IMMEDIATE write lock and one fsync. */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    try {
      const stored = this.putAllAndRead.immediate(batch);
      batch.forEach((put, i) => put.resolve(new Uint8Array(stored[i])));
    } catch (error) {
      for (const put of batch) put.reject(error);
    }
  }

  async get(tenantId: string, tokenId: string): Promise<Uint8Array | null> {
    const row = this.statements.get.get(tenantId, tokenId);
    return row ? new Uint8Array(row.wrapped_key) : null;
  }

  /** Sorted first, so the lookups walk the key index in order instead of jumping around it. */
  async getMany(tenantId: string, tokenIds: readonly string[]): Promise<Map<string, Uint8Array>> {
    const found = new Map<string, Uint8Array>();
    if (tokenIds.length === 0) return found;
    const rows = this.statements.getMany.all(JSON.stringify([...new Set(tokenIds)].sort()), tenantId);
    for (const row of rows) found.set(row.token_id, new Uint8Array(row.wrapped_key));
    return found;
  }

  async destroy(tenantId: string, tokenId: string): Promise<void> {
    this.statements.delete.run(tenantId, tokenId);
    // The key's bytes also sit in WAL frames written before the delete; a truncating checkpoint moves the zeroed
    // pages into the file and empties the WAL. If another connection is reading, it completes on a later destroy.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Where the shredder stopped in the event log (an encoded LogPosition), or null before its first batch. */
  shredCheckpoint(): string | null {
    return this.statements.checkpoint.get()?.position ?? null;
  }

  /**
   * Destroys these keys and moves the shredder's checkpoint in one transaction, so a crash either does both or neither
   * (and a replay destroys nothing twice: a missing key is simply skipped).
   */
  shred(keys: ReadonlyArray<{ tenantId: string; tokenId: string }>, position: string): void {
    const destroyed = this.shredAll.immediate(keys, position);
    if (destroyed > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Tenant keys after `tenantId` in id order, a page of them (a master-key rotation walks them all). */
  tenantKeysAfter(tenantId: string, limit: number): Array<{ tenantId: string; wrapped: Uint8Array | null; derived: boolean; destroyed: boolean }> {
    const rows = this.db
      .prepare<[string, number], TenantKeyRow & { tenant_id: string }>(
        'SELECT tenant_id, wrapped_key, derived, destroyed FROM tenant_keys WHERE tenant_id > ? ORDER BY tenant_id LIMIT ?',
      )
      .all(tenantId, limit);
    return rows.map((row) => ({
      tenantId: row.tenant_id,
      wrapped: row.wrapped_key ? new Uint8Array(row.wrapped_key) : null,
      derived: row.derived === 1,
      destroyed: row.destroyed === 1,
    }));
  }

  countTenantKeys(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM tenant_keys').get() as { n: number }).n;
  }

  /**
   * Replaces tenant keys' wrappings in one transaction, each only if the row still holds the wrapping it was read with
   * (a tenant deleted meanwhile stays destroyed). Answers how many were replaced.
   */
  rewrapTenantKeys(rewrapped: ReadonlyArray<{ tenantId: string; wrapped: Uint8Array; previous: Uint8Array }>): number {
    const update = this.db.prepare<[Buffer, string, Buffer]>(
      'UPDATE tenant_keys SET wrapped_key = ? WHERE tenant_id = ? AND destroyed = 0 AND wrapped_key = ?',
    );
    return this.db
      .transaction(() => rewrapped.reduce((n, { tenantId, wrapped, previous }) => n + update.run(Buffer.from(wrapped), tenantId, Buffer.from(previous)).changes, 0))
      .immediate();
  }

  truncateLog(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    this.closed = true;
    this.db.close();
  }
}

const toRecord = (row: TenantKeyRow | undefined): TenantKeyRecord | null => {
  if (!row) return null;
  if (row.destroyed) return { state: 'destroyed' };
  return { state: 'active', wrapped: row.wrapped_key ? new Uint8Array(row.wrapped_key) : null, derived: row.derived === 1 };
};
