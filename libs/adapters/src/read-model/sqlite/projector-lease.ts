// The projector lease of the processes sharing one data dir: one row in its own small SQLite file (apart from the read
// model, which a rebuild swaps), taken and renewed in BEGIN IMMEDIATE transactions so that two bids never both win.
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
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

/** Renewed every second (LEASE_RENEW_MS): a holder that misses three renewals stops writing, and is replaced after 5 s. */
export const DEFAULT_LEASE_TIMES: LeaseTimes = { expireMs: 5000, safeMs: 3000 };

interface LeaseRow {
  owner: string;
  heartbeat_ms: number;
}

/** This process's PID namespace (Linux), so that a PID is only ever compared with PIDs of the same namespace. */
const PID_NAMESPACE = (() => {
  try {
    return readlinkSync('/proc/self/ns/pid').replace(/\D/g, '');
  } catch {
    return null;
  }
})();

export class SqliteProjectorLease implements ProjectorLease {
  /** Not a secret: host, PID namespace and PID name the process (in the row and in logs), the random part this start. */
  readonly owner = `${hostname()}/${PID_NAMESPACE ?? '-'}/${process.pid}/${randomUUID().slice(0, 8)}`;
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
      const free = !row || row.owner === this.owner || now - row.heartbeat_ms > this.times.expireMs || this.isDead(row.owner);
      if (!free) return false;
      this.db.prepare('INSERT INTO projector_lease (id, owner, heartbeat_ms) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, heartbeat_ms = excluded.heartbeat_ms').run(this.owner, now);
      this.renewedAt = now;
      return true;
    });
    const held = bid.immediate();
    if (!held) this.renewedAt = null;
    return held;
  }

  /**
   * Whether `owner` is a process of this host and PID namespace that no longer runs: a vault restarted after a crash
   * takes its own dead predecessor's lease at once instead of after expireMs. Anything uncertain (another host or
   * namespace, a PID that runs, whatever program it is now) counts as alive, and the lease then expires as usual.
   */
  private isDead(owner: string): boolean {
    const [host, namespace, pid] = owner.split('/');
    if (PID_NAMESPACE === null || host !== hostname() || namespace !== PID_NAMESPACE || !/^[1-9][0-9]*$/.test(pid ?? '')) return false;
    if (Number(pid) === process.pid) return false;
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
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
