// The embedded read model: one SQLite file holding every collection and the projector's checkpoint, in one transaction.
// A rebuild writes a new file and flips the CURRENT pointer; every process using the data dir follows the pointer.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodePosition,
  DocumentChange,
  encodePosition,
  LogPosition,
  ProjectionStore,
  RebuildableReadModel,
  RebuildTarget,
  StoredDocument,
} from '@vault/application';
import { openDatabase, SqliteDatabase } from '../../sqlite/open-database';
import type { SqliteCollection } from './sqlite-collection';

const POINTER = 'CURRENT';

export class SqliteReadModel implements ProjectionStore, RebuildableReadModel {
  private db: SqliteDatabase;
  private file: string;
  private readonly byName: Map<string, SqliteCollection>;
  private readonly listeners = new Set<() => void>();

  private constructor(
    private readonly dir: string,
    private readonly collections: SqliteCollection[],
    file: string,
  ) {
    this.byName = new Map(collections.map((c) => [c.name, c]));
    this.file = file;
    this.db = this.openFile(file);
  }

  /** Opens the current read model of `dataDir` (creating the first one). */
  static open(dataDir: string, collections: SqliteCollection[]): SqliteReadModel {
    const dir = join(dataDir, 'readmodel');
    const pointer = join(dir, POINTER);
    const file = existsSync(pointer) ? readFileSync(pointer, 'utf8').trim() : 'readmodel-0.sqlite';
    const model = new SqliteReadModel(dir, collections, file);
    if (!existsSync(pointer)) writePointer(dir, file);
    return model;
  }

  /** The live database; query adapters read through this so that they follow a swap. */
  get database(): SqliteDatabase {
    return this.db;
  }

  describe(): string {
    return `embedded SQLite read model (${join(this.dir, this.file)})`;
  }

  async checkpoint(): Promise<LogPosition | null> {
    return readCheckpoint(this.db);
  }

  async load(collection: string, ids: string[]): Promise<Map<string, StoredDocument>> {
    const rows = this.collection(collection).load(this.db, ids);
    return new Map(rows.map((r) => [r.id, { revision: BigInt(r.revision), doc: JSON.parse(r.doc) }]));
  }

  async commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    commitTo(this.db, this.byName, changes, checkpoint);
  }

  async createRebuildTarget(): Promise<RebuildTarget> {
    const file = `readmodel-${Date.now()}.sqlite`;
    const db = this.openFile(file, 'normal');
    db.pragma('synchronous = OFF');
    const store: ProjectionStore = {
      checkpoint: async () => readCheckpoint(db),
      load: async (collection, ids) => {
        const rows = this.collection(collection).load(db, ids);
        return new Map(rows.map((r) => [r.id, { revision: BigInt(r.revision), doc: JSON.parse(r.doc) }]));
      },
      commit: async (changes, checkpoint) => commitTo(db, this.byName, changes, checkpoint),
    };
    return {
      store,
      swapIn: async () => {
        db.pragma('synchronous = NORMAL');
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
        writePointer(this.dir, file);
      },
      discard: async () => {
        if (db.open) db.close();
        removeDatabaseFiles(this.dir, file);
      },
    };
  }

  /** Watches the CURRENT pointer (a rebuild in another process); `onSwap` must reopen via `followPointer`. */
  watchPointer(onSwap: () => void): void {
    this.listeners.add(onSwap);
    if (this.listeners.size === 1) {
      watchFile(join(this.dir, POINTER), { interval: 500 }, () => {
        for (const listener of this.listeners) listener();
      });
    }
  }

  /** Switches to the file CURRENT names, if it changed; deletes the old one. Returns whether it switched. */
  followPointer(): boolean {
    const next = readFileSync(join(this.dir, POINTER), 'utf8').trim();
    if (next === this.file) return false;
    const old = this.file;
    const oldDb = this.db;
    this.db = this.openFile(next);
    this.file = next;
    oldDb.close();
    removeDatabaseFiles(this.dir, old);
    return true;
  }

  async close(): Promise<void> {
    unwatchFile(join(this.dir, POINTER));
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }

  /** Removes files of abandoned rebuilds (crashed before the swap). */
  removeStaleFiles(): void {
    for (const name of readdirSync(this.dir)) {
      const base = name.replace(/-(wal|shm)$/, '');
      if (base.startsWith('readmodel-') && base !== this.file) rmSync(join(this.dir, name), { force: true });
    }
  }

  private collection(name: string): SqliteCollection {
    const collection = this.byName.get(name);
    if (!collection) throw new Error(`No SQLite collection "${name}"`);
    return collection;
  }

  private openFile(file: string, synchronous: 'normal' | 'full' = 'normal'): SqliteDatabase {
    const db = openDatabase(join(this.dir, file), { synchronous });
    db.exec('CREATE TABLE IF NOT EXISTS checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), position TEXT NOT NULL);');
    for (const collection of this.collections) db.exec(collection.schema);
    return db;
  }
}

function commitTo(
  db: SqliteDatabase,
  collections: Map<string, SqliteCollection>,
  changes: DocumentChange[],
  checkpoint: LogPosition,
): void {
  db.transaction(() => {
    for (const change of changes) {
      const collection = collections.get(change.collection);
      if (!collection) throw new Error(`No SQLite collection "${change.collection}"`);
      if (change.doc === null) collection.remove(db, change.id);
      else collection.upsert(db, change.id, change.revision, change.doc);
    }
    db.prepare('INSERT INTO checkpoint (id, position) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET position = excluded.position').run(
      encodePosition(checkpoint),
    );
  }).immediate();
}

function readCheckpoint(db: SqliteDatabase): LogPosition | null {
  const row = db.prepare('SELECT position FROM checkpoint WHERE id = 1').get() as { position: string } | undefined;
  return row ? decodePosition(row.position) : null;
}

function writePointer(dir: string, file: string): void {
  const tmp = join(dir, `${POINTER}.tmp`);
  writeFileSync(tmp, file);
  renameSync(tmp, join(dir, POINTER));
}

function removeDatabaseFiles(dir: string, file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, file + suffix), { force: true });
}
