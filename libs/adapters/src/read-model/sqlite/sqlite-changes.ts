// How a document change and the checkpoint are written to a read-model file: the one path of the live projector's
// commits and of a rebuild's (which batches new documents through bulkInsert around it).
import { encodePosition, isTenantPurge, type DocumentChange, type LogPosition } from '@vault/application';
import { statement, type SqliteDatabase } from '../../sqlite/open-database';
import type { SqliteCollection } from './sqlite-collection';

/** Writes one change; inside the caller's transaction. */
export function writeChange(db: SqliteDatabase, collections: Map<string, SqliteCollection>, change: DocumentChange): void {
  if (isTenantPurge(change)) {
    for (const collection of collections.values()) collection.purgeTenant?.(db, change.id);
    return;
  }
  const collection = collections.get(change.collection);
  if (!collection) throw new Error(`No SQLite collection "${change.collection}"`);
  if (change.doc === null) collection.remove(db, change.id);
  else collection.upsert(db, change.id, change.revision, change.doc);
}

/** Writes the checkpoint; inside the transaction of the changes it covers. */
export function writeCheckpoint(db: SqliteDatabase, checkpoint: LogPosition): void {
  statement(db, 'INSERT INTO checkpoint (id, position) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET position = excluded.position').run(
    encodePosition(checkpoint),
  );
}
