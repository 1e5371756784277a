// The projector lease of the processes sharing one data dir: one row in its own small SQLite file (apart from the read
// model, which a rebuild swaps), taken and renewed in BEGIN IMMEDIATE transactions so that two bids never both win.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ProjectorLease } from '@vault/application';
import { openDatabase, SqliteDatabase } from '../../sqlite/open-database';

export const PROJECTOR_LEASE_FILE = 'projector-lease.sqlite';

export interface LeaseTimes {
  /** A lease not renewed for this long may be taken by another process. */
  expireMs: number;
  /** The holder stops committing once its last renewal is this old: well before anyone else may take the lease. */
  safeMs: number;
}

/** Renewed every second (LEASE_RENEW_MS): a holder that misses two renewals stops writing; a dead one is replaced after 5 s. */
export const DEFAULT_LEASE_TIMES: LeaseTimes = { expireMs: 5000, safeMs: 3000 };

interface LeaseRow {
  owner: string;
  heartbeat_ms: number;
}

export class SqliteProjectorLease implements ProjectorLease {
  /** Not a secret: it names the process in the lease row and in logs. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private renewedAt: number | null = null;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly times: LeaseTimes,
    private readonly now: () => number,
  ) {
    db.exec('CREATE TABLE IF NOT EXISTS projector_lease (id INTEGER PRIMARY KEY CHECK (id = 1), owner TEXT NOT NULL, heartbeat_ms INTEGER NOT NULL)');
  }

  static open(dataDir: string, times: LeaseTimes = DEFAULT_LEASE_TIMES, now: () => number = Date.now): SqliteProjectorLease {
    return new SqliteProjectorLease(openDatabase(join(dataDir, PROJECTOR_LEASE_FILE)), times, now);
  }

  async acquire(): Promise<boolean> {
    const bid = this.db.transaction((): boolean => {
      const now = this.now();
      const row = this.db.prepare('SELECT owner, heartbeat_ms FROM projector_lease WHERE id = 1').get() as LeaseRow | undefined;
      const free = !row || row.owner === this.owner || now - row.heartbeat_ms > this.times.expireMs;
      if (!free) return false;
      this.db.prepare('INSERT INTO projector_lease (id, owner, heartbeat_ms) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, heartbeat_ms = excluded.heartbeat_ms').run(this.owner, now);
      this.renewedAt = now;
      return true;
    });
    const held = bid.immediate();
    if (!held) this.renewedAt = null;
    return held;
  }

  holds(): boolean {
    return this.renewedAt !== null && this.now() - this.renewedAt < this.times.safeMs;
  }

  async release(): Promise<void> {
    this.renewedAt = null;
    if (this.db.open) this.db.prepare('DELETE FROM projector_lease WHERE id = 1 AND owner = ?').run(this.owner);
  }

  /** Who holds the lease now (a process that has not renewed it for expireMs holds nothing). */
  holder(): string | null {
    const row = this.db.prepare('SELECT owner, heartbeat_ms FROM projector_lease WHERE id = 1').get() as LeaseRow | undefined;
    return row && this.now() - row.heartbeat_ms <= this.times.expireMs ? row.owner : null;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
