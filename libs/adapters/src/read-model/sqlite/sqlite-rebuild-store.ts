// The store a rebuild writes into: a fresh read-model file that only this store has written. It remembers which
// documents it wrote, so a document it never wrote is neither looked up (it cannot be in the file) nor upserted: new
// documents become multi-row INSERTs (SqliteCollection.bulkWriter) with the rows and rowids the upserts would have
// written, which a writer thread commits while this thread makes the next batch's rows. Anything else (an update, a
// delete, a tenant purge, a lookup) waits for the writer to finish and runs here, on this thread's connection.
// Unlike the live store, one batch may so be committed in more than one transaction: a rebuild's file is not used
// before its swap, and a failed rebuild discards it.
import {
  decodePosition,
  encodePosition,
  isTenantPurge,
  type DocumentChange,
  type LogPosition,
  type ProjectionStore,
  type StoredDocument,
} from '@vault/application';
import { statement, type SqliteDatabase } from '../../sqlite/open-database';
import type { BulkRows, BulkWriterThread } from './bulk-writer-thread';
import { writeChange } from './sqlite-changes';
import type { BulkDocument, BulkWriter, SqliteCollection } from './sqlite-collection';
import { WrittenKeys } from './written-keys';

export class SqliteRebuildStore implements ProjectionStore {
  private readonly written = new Map<string, WrittenKeys>();
  /** Made from the file as this connection last saw it; dropped whenever this connection writes. */
  private readonly writers = new Map<SqliteCollection, BulkWriter>();
  /** The documents of each write the thread may not have committed yet, by collection. */
  private uncommitted: Array<{ write: number; ids: Map<string, Set<string>> }> = [];

  constructor(
    private readonly db: SqliteDatabase,
    private readonly collections: Map<string, SqliteCollection>,
    private readonly thread: BulkWriterThread,
  ) {}

  async checkpoint(): Promise<LogPosition | null> {
    await this.thread.idle();
    const row = statement(this.db, 'SELECT position FROM checkpoint WHERE id = 1').get() as { position: string } | undefined;
    return row ? decodePosition(row.position) : null;
  }

  async load(name: string, ids: string[]): Promise<Map<string, StoredDocument>> {
    const written = this.written.get(name);
    const perhaps = written ? ids.filter((id) => written.mayHave(id)) : [];
    if (perhaps.length === 0) return new Map();
    // This connection sees what the thread has committed; a document of a write still on its way is waited for.
    this.forgetCommitted();
    if (this.uncommitted.some(({ ids }) => perhaps.some((id) => ids.get(name)?.has(id)))) await this.thread.idle();
    const rows = this.collection(name).load(this.db, perhaps);
    return new Map(rows.map((r) => [r.id, { revision: BigInt(r.revision), doc: JSON.parse(r.doc) }]));
  }

  /**
   * New documents wait in per-collection runs; any other change first hands every waiting run to the writer and
   * waits for it, so each table gets its rows in the order of `changes`, as the live projector's commit writes them.
   */
  async commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    const waiting = new Map<SqliteCollection, BulkDocument[]>();
    const handOver = async (checkpoint: string | null) => {
      const inserts: BulkRows[] = [];
      const ids = new Map<string, Set<string>>();
      for (const [collection, docs] of waiting) {
        inserts.push(...this.writerOf(collection)!.rowsOf(docs));
        ids.set(collection.name, new Set(docs.map((doc) => doc.id)));
      }
      waiting.clear();
      const write = await this.thread.write(inserts, checkpoint);
      this.forgetCommitted();
      this.uncommitted.push({ write, ids });
    };
    for (const change of changes) {
      const collection = isTenantPurge(change) ? null : this.collection(change.collection);
      if (collection && change.doc !== null && this.hasBulkWriter(collection) && !this.writtenOf(change.collection).mayHave(change.id)) {
        const run = waiting.get(collection) ?? [];
        run.push({ id: change.id, revision: change.revision, doc: change.doc });
        waiting.set(collection, run);
      } else {
        if (waiting.size > 0) await handOver(null);
        await this.thread.idle();
        this.db.transaction(() => writeChange(this.db, this.collections, change))();
        this.writers.clear();
      }
      if (collection) this.writtenOf(change.collection).add(change.id);
    }
    await handOver(encodePosition(checkpoint));
  }

  /** Drops the documents of committed writes (a few writes are in flight at most, so this stays short). */
  private forgetCommitted(): void {
    this.uncommitted = this.uncommitted.filter(({ write }) => write > this.thread.committed);
  }

  private hasBulkWriter(collection: SqliteCollection): boolean {
    return collection.bulkWriter !== undefined;
  }

  private writerOf(collection: SqliteCollection): BulkWriter | undefined {
    let writer = this.writers.get(collection);
    if (!writer) {
      if (!collection.bulkWriter) return undefined;
      this.writers.set(collection, (writer = collection.bulkWriter(this.db)));
    }
    return writer;
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
