// The embedded read model: one SQLite file holding every collection and the projector's checkpoint, in one transaction.
// A rebuild writes a new file and flips the CURRENT pointer; every process using the data dir follows the pointer.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, unwatchFile, watchFile, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  decodePosition,
  isTenantPurge,
  DocumentChange,
  LogPosition,
  ProjectionStore,
  RebuildableReadModel,
  RebuildTarget,
  StoredDocument,
} from '@vault/application';
import { FileLock } from '../../sqlite/file-lock';
import { openDatabase, SqliteDatabase, statement } from '../../sqlite/open-database';
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictFile, SQLITE_COMPANION_SUFFIXES } from '../../sqlite/private-files';
import { BulkWriterThread } from './bulk-writer-thread';
import { analyze, PLANNER_STATISTICS_SCHEMA, PlannerStatistics, statisticsAtOpen } from './planner-statistics';
import { writeChange, writeCheckpoint } from './sqlite-changes';
import type { SqliteCollection } from './sqlite-collection';
import { SqliteRebuildStore } from './sqlite-rebuild-store';

const POINTER = 'CURRENT';
/**
 * Held (briefly) by whoever reads or changes which files the directory holds: opening the read model (the first file,
 * a layout upgrade), starting a rebuild, swapping one in, removing stale files. Processes starting at the same moment
 * would otherwise each decide on their own, and one could delete the file another has just made current.
 */
const DIRECTORY_LOCK = 'LOCK';
/** Beside a rebuild's file, held by the rebuilding process until the swap: that file is not stale while it is held. */
const REBUILDING_SUFFIX = '-rebuilding';
/**
 * The live file's page cache. At a million tokens the inner pages of the token rows, the id index and token_terms
 * are about 14 MB: in SQLite's default 2 MB they do not stay, and every search and write reads them again from the
 * OS (a system call and a copy per page).
 */
const READ_MODEL_CACHE_MIB = 32;
/** A rebuild's page cache: the token key index of a million tokens is about 100 MB. */
const REBUILD_CACHE_KIB = 128 * 1024;

/**
 * The layout of the read model's tables (PRAGMA user_version). A file of another layout is never opened for writing:
 * start-up builds a fresh one from the event log instead (the projector replays from the start), and deletes the old.
 * 2: token rows are unique per (tenant_id, id).
 * 3: the reactors table (its projection replays the reactor events a file of layout 2 never applied).
 * 4: the audit table (its projection replays every audited event a file of layout 3 never applied).
 * 5: the audit table keyed by log position (WITHOUT ROWID), the entry's fields as its columns.
 * 6: token rowids AUTOINCREMENT (the search bitmaps' document numbers) and the token_changes log.
 * 7: the proxies table (its projection replays the proxy events a file of layout 6 never applied).
 * 8: the usage report's tables and their counters (their projections replay the token events and access records).
 * 9: the webhooks and webhook_deliveries tables.
 */
export const READ_MODEL_SCHEMA_VERSION = 9;

export class SqliteReadModel implements ProjectionStore, RebuildableReadModel {
  private db: SqliteDatabase;
  private file: string;
  private readonly byName: Map<string, SqliteCollection>;
  private readonly listeners = new Set<() => void>();
  private readonly statistics = new PlannerStatistics();
  private readonly stamps = new Map<string, number>();
  private swaps = 0;
  /** Commits to the live file by other connections (another process's projector), as seen through data_version. */
  private foreignCommits = 0;
  private dataVersion: number | null = null;

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
    ensurePrivateDir(dataDir);
    ensurePrivateDir(dir);
    return withDirectoryLock(dir, () => {
      const pointer = join(dir, POINTER);
      restrictFile(pointer);
      const current = existsSync(pointer) ? readFileSync(pointer, 'utf8').trim() : 'readmodel-0.sqlite';
      const outdated = hasOtherSchema(join(dir, current));
      const file = outdated ? newFileName() : current;
      const model = new SqliteReadModel(dir, collections, file);
      if (!existsSync(pointer) || outdated) writePointer(dir, file);
      if (outdated) removeDatabaseFiles(dir, current);
      return model;
    });
  }

  /** The live database; query adapters read through this so that they follow a swap. */
  get database(): SqliteDatabase {
    return this.db;
  }

  /** The live database file; another connection (a worker's) opens it read-only. */
  get path(): string {
    return join(this.dir, this.file);
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
    // secure_delete zeroes what the commit freed in the file, but the WAL still holds the pages as they were; before
    // the commit's waiter answers the DELETE, they are copied back and the WAL emptied (as the key store does).
    if (changes.some((change) => isTenantPurge(change) || (change.doc === null && this.byName.get(change.collection)?.derivedFromData))) {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    this.statistics.changed(this.db, changes.length);
    for (const change of changes) this.stamps.set(change.collection, (this.stamps.get(change.collection) ?? 0) + 1);
  }

  /**
   * Changes whenever a document of `collection` is committed by this process, whenever another process commits
   * anything to the live file (VAULT_PROJECTOR=external: apps/projector writes, this process only reads), or when a
   * rebuilt file is swapped in. Every term only grows, so any change moves the sum.
   */
  changeStamp(collection: string): number {
    this.noticeForeignCommits();
    return (this.stamps.get(collection) ?? 0) + this.foreignCommits + this.swaps * 1_000_000_007;
  }

  /**
   * SQLite's data_version moves when another connection has committed to the file since this connection last asked
   * (never for its own commits). Which collections it touched is unknown, so every collection's stamp moves.
   */
  private noticeForeignCommits(): void {
    const { data_version } = statement(this.db, 'PRAGMA data_version').get() as { data_version: number };
    if (this.dataVersion !== null && data_version !== this.dataVersion) this.foreignCommits += 1;
    this.dataVersion = data_version;
  }

  async createRebuildTarget(): Promise<RebuildTarget> {
    const file = newFileName();
    // Taken before the file exists, under the directory lock: no removeStaleFiles ever sees the file unclaimed.
    const building = withDirectoryLock(this.dir, () => FileLock.acquire(join(this.dir, file + REBUILDING_SUFFIX)));
    // Never throws: a swap that wrote the pointer must not be discarded (that would delete the file just made current).
    const finished = () => {
      try {
        rmSync(join(this.dir, file + REBUILDING_SUFFIX), { force: true });
      } catch {
        // Left behind, unlocked: the next removeStaleFiles takes it with the rest of a stale file, never with the current.
      }
      try {
        building.release();
      } catch {
        // The lock goes with the connection, closed here or when this process exits.
      }
    };
    let db: SqliteDatabase;
    try {
      db = this.openFile(file, 'normal', { deferIndexes: true });
    } catch (error) {
      withDirectoryLock(this.dir, () => {
        removeDatabaseFiles(this.dir, file);
        finished();
      });
      throw error;
    }
    // Nothing reads the file before the swap and a crash leaves it to removeStaleFiles, so it needs no durability on
    // the way: no WAL (every page would be written twice) and no fsync. The writer thread's page cache holds the
    // token key index (random ids) of a large vault.
    const unsafe = ['journal_mode = MEMORY', 'synchronous = OFF'];
    for (const pragma of unsafe) db.pragma(pragma);
    for (const collection of this.collections) collection.beforeRebuild?.(db);
    const thread = new BulkWriterThread(join(this.dir, file), [...unsafe, `cache_size = -${REBUILD_CACHE_KIB}`, 'busy_timeout = 10000']);
    const store = new SqliteRebuildStore(db, this.byName, thread);
    return {
      store,
      swapIn: async () => {
        await thread.close();
        db.pragma(`cache_size = -${REBUILD_CACHE_KIB}`);
        for (const collection of this.collections) if (collection.deferredIndexes) db.exec(collection.deferredIndexes);
        for (const collection of this.collections) collection.afterRebuild?.(db);
        analyze(db);
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.close();
        withDirectoryLock(this.dir, () => {
          writePointer(this.dir, file);
          finished();
        });
      },
      discard: async () => {
        await thread.terminate();
        if (db.open) db.close();
        withDirectoryLock(this.dir, () => {
          // A rebuild that failed after its swap wrote the pointer: the file is live now and stays.
          if (readPointer(this.dir, '') !== file) removeDatabaseFiles(this.dir, file);
          finished();
        });
      },
    };
  }

  /** Watches the CURRENT pointer (a rebuild in another process); `onSwap` must reopen via `followPointer`. */
  watchPointer(onSwap: () => void): void {
    this.listeners.add(onSwap);
    if (this.listeners.size === 1) {
      watchFile(join(this.dir, POINTER), { interval: 500 }, () => {
        // Any process opening the read model touches the pointer's mode; only a new file name is a swap.
        let named: string;
        try {
          named = readFileSync(join(this.dir, POINTER), 'utf8').trim();
        } catch {
          return;
        }
        if (named === this.file) return;
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
    this.swaps += 1;
    this.dataVersion = null;
    // Closing the last connection checkpoints the WAL into the file, and with fsync that waits behind the kernel
    // writing back the rebuild's gigabytes (seconds, on the event loop). The file is deleted next: no fsync.
    oldDb.pragma('synchronous = OFF');
    oldDb.close();
    // Off the event loop: unlinking a file of gigabytes takes the file system a while. No process opens it again.
    for (const suffix of ['', ...SQLITE_COMPANION_SUFFIXES]) void rm(join(this.dir, old + suffix), { force: true }).catch(() => undefined);
    return true;
  }

  async close(): Promise<void> {
    unwatchFile(join(this.dir, POINTER));
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }

  /**
   * Removes the files of abandoned rebuilds (their process exited before the swap) and of files swapped out. Never the
   * current file, nor one a live process is rebuilding: its lock is held.
   */
  removeStaleFiles(): void {
    withDirectoryLock(this.dir, () => {
      const current = readPointer(this.dir, this.file);
      const names = readdirSync(this.dir);
      const bases = new Set(names.filter((name) => name.startsWith('readmodel-')).map(baseFileOf));
      for (const base of bases) {
        if (base === current || base === this.file || FileLock.isHeld(join(this.dir, base + REBUILDING_SUFFIX))) continue;
        for (const name of names) if (baseFileOf(name) === base) rmSync(join(this.dir, name), { force: true });
      }
    });
  }

  private collection(name: string): SqliteCollection {
    const collection = this.byName.get(name);
    if (!collection) throw new Error(`No SQLite collection "${name}"`);
    return collection;
  }

  private openFile(file: string, synchronous: 'normal' | 'full' = 'normal', options: { deferIndexes?: boolean } = {}): SqliteDatabase {
    const db = openDatabase(join(this.dir, file), { synchronous, cacheMiB: READ_MODEL_CACHE_MIB });
    // One transaction: another process never sees the tables without the layout version (hasOtherSchema would take a
    // file being created for one of another layout).
    db.transaction(() => {
      db.exec('CREATE TABLE IF NOT EXISTS checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), position TEXT NOT NULL);');
      for (const collection of this.collections) {
        db.exec(collection.schema);
        if (collection.deferredIndexes && !options.deferIndexes) db.exec(collection.deferredIndexes);
      }
      db.exec(PLANNER_STATISTICS_SCHEMA);
      db.exec(`PRAGMA user_version = ${READ_MODEL_SCHEMA_VERSION}`);
    }).immediate();
    statisticsAtOpen(db);
    return db;
  }
}

/** Whether `path` is a read model file written with another table layout (an empty or missing file is not). */
function hasOtherSchema(path: string): boolean {
  if (!existsSync(path)) return false;
  const db = openDatabase(path, { readonly: true });
  try {
    const version = db.pragma('user_version', { simple: true }) as number;
    const tables = (db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
    return tables > 0 && version !== READ_MODEL_SCHEMA_VERSION;
  } finally {
    db.close();
  }
}

function commitTo(
  db: SqliteDatabase,
  collections: Map<string, SqliteCollection>,
  changes: DocumentChange[],
  checkpoint: LogPosition,
): void {
  db.transaction(() => {
    for (const change of changes) writeChange(db, collections, change);
    writeCheckpoint(db, checkpoint);
  }).immediate();
}

function readCheckpoint(db: SqliteDatabase): LogPosition | null {
  const row = statement(db, 'SELECT position FROM checkpoint WHERE id = 1').get() as { position: string } | undefined;
  return row ? decodePosition(row.position) : null;
}

/** A new file's name: unique even for two processes making one in the same millisecond. */
const newFileName = () => `readmodel-${Date.now()}-${randomBytes(4).toString('hex')}.sqlite`;

/** The database file a directory entry belongs to: itself, or the file it is a companion or rebuild lock of. */
const baseFileOf = (name: string) => name.replace(/-(wal|shm|journal)$/, '').replace(new RegExp(`${REBUILDING_SUFFIX}$`), '');

/** The file CURRENT names, or `otherwise` when there is no pointer. */
function readPointer(dir: string, otherwise: string): string {
  try {
    return readFileSync(join(dir, POINTER), 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return otherwise;
    throw error;
  }
}

function withDirectoryLock<T>(dir: string, work: () => T): T {
  const lock = FileLock.acquire(join(dir, DIRECTORY_LOCK));
  try {
    return work();
  } finally {
    lock.release();
  }
}

function writePointer(dir: string, file: string): void {
  // Always under the directory lock, so one draft name serves every process.
  const tmp = join(dir, `${POINTER}.tmp`);
  writeFileSync(tmp, file, { mode: PRIVATE_FILE_MODE });
  // `mode` applies only when the file is created; a leftover tmp file from a crash keeps its old mode otherwise.
  restrictFile(tmp);
  renameSync(tmp, join(dir, POINTER));
}

function removeDatabaseFiles(dir: string, file: string): void {
  for (const suffix of ['', ...SQLITE_COMPANION_SUFFIXES]) rmSync(join(dir, file + suffix), { force: true });
}
