// The store a rebuild writes into: a fresh read-model file that only this store has written. It remembers which
// documents it wrote, so a document it never wrote is neither looked up (it cannot be in the file) nor upserted: new
// documents are inserted in bulk (SqliteCollection.bulkInsert) with the rows and rowids the upserts would have written.
import { decodePosition, isTenantPurge, type DocumentChange, type LogPosition, type ProjectionStore, type StoredDocument } from '@vault/application';
import { statement, type SqliteDatabase } from '../../sqlite/open-database';
import { bulkInsertAudit } from './sqlite-audit-bulk';
import { auditTable } from './sqlite-audit';
import { writeChange, writeCheckpoint } from './sqlite-changes';
import type { BulkDocument, SqliteCollection } from './sqlite-collection';
import { bulkInsertTokens } from './tokens/sqlite-tokens-bulk';
import { tokensTable } from './tokens/sqlite-tokens';
import { WrittenKeys } from './written-keys';

/** Bulk writers of the collections whose own object does not carry one (their files are kept by others). */
const BULK_INSERTS = new Map<SqliteCollection, NonNullable<SqliteCollection['bulkInsert']>>([
  [tokensTable, bulkInsertTokens],
  [auditTable, bulkInsertAudit],
]);

export class SqliteRebuildStore implements ProjectionStore {
  private readonly written = new Map<string, WrittenKeys>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly collections: Map<string, SqliteCollection>,
  ) {}

  async checkpoint(): Promise<LogPosition | null> {
    const row = statement(this.db, 'SELECT position FROM checkpoint WHERE id = 1').get() as { position: string } | undefined;
    return row ? decodePosition(row.position) : null;
  }

  async load(name: string, ids: string[]): Promise<Map<string, StoredDocument>> {
    const written = this.written.get(name);
    const perhaps = written ? ids.filter((id) => written.mayHave(id)) : [];
    if (perhaps.length === 0) return new Map();
    const rows = this.collection(name).load(this.db, perhaps);
    return new Map(rows.map((r) => [r.id, { revision: BigInt(r.revision), doc: JSON.parse(r.doc) }]));
  }

  /**
   * New documents wait in per-collection runs; any other change first writes every waiting run, so each table gets
   * its rows in the order of `changes`, as the live projector's commit writes them (rowids included).
   */
  async commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    const waiting = new Map<SqliteCollection, BulkDocument[]>();
    const flush = () => {
      for (const [collection, docs] of waiting) this.bulkInsertOf(collection)!(this.db, docs);
      waiting.clear();
    };
    this.db.transaction(() => {
      for (const change of changes) {
        const collection = isTenantPurge(change) ? null : this.collection(change.collection);
        const bulk = collection && this.bulkInsertOf(collection);
        if (collection && bulk && change.doc !== null && !this.writtenOf(change.collection).mayHave(change.id)) {
          const run = waiting.get(collection) ?? [];
          run.push({ id: change.id, revision: change.revision, doc: change.doc });
          waiting.set(collection, run);
        } else {
          flush();
          writeChange(this.db, this.collections, change);
        }
        if (collection) this.writtenOf(change.collection).add(change.id);
      }
      flush();
      writeCheckpoint(this.db, checkpoint);
    })();
  }

  private bulkInsertOf(collection: SqliteCollection): SqliteCollection['bulkInsert'] {
    return collection.bulkInsert ?? BULK_INSERTS.get(collection);
  }

  private writtenOf(name: string): WrittenKeys {
    let written = this.written.get(name);
    if (!written) this.written.set(name, (written = new WrittenKeys()));
    return written;
  }

  private collection(name: string): SqliteCollection {
    const collection = this.collections.get(name);
    if (!collection) throw new Error(`No SQLite collection "${name}"`);
    return collection;
  }
}
