// Runs costly search statements on a worker thread with its own read-only connection: counts that visit hundreds of
// thousands of rows, whole searches whose many terms make every row expensive, and the reads that rebuild the search
// bitmaps after a rebuild's swap, so none holds the API's event loop (WAL lets the worker read while the main thread
// writes).
import { Worker } from 'node:worker_threads';

// Plain CommonJS so the same source runs from dist/ and under Jest; the driver's path comes from the main thread.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let file = null;
let db = null;
const statements = new Map();
const use = (wanted) => {
  if (wanted === file) return;
  if (db) db.close();
  db = null;
  file = null;
  db = new Database(wanted, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 10000');
  statements.clear();
  file = wanted;
};
const prepared = (sql, raw) => {
  const key = (raw ? 'raw:' : 'obj:') + sql;
  let statement = statements.get(key);
  if (!statement) {
    statement = db.prepare(sql);
    if (raw) statement.raw(true);
    if (statements.size > 200) statements.clear();
    statements.set(key, statement);
  }
  return statement;
};
// Several statements in one read transaction (one committed state), raw rows; the columns named in 'typed' hold JSON
// arrays of numbers, handed back as typed arrays whose memory moves to the main thread instead of being copied.
const snapshot = (list) => {
  const transfer = [];
  const results = db.transaction(() => list.map(({ sql, typed }) => {
    const rows = prepared(sql, true).all();
    if (typed) {
      for (const row of rows) {
        for (const [column, kind] of Object.entries(typed)) {
          const values = JSON.parse(row[column]);
          const array = kind === 'u32' ? Uint32Array.from(values) : Float64Array.from(values);
          row[column] = array;
          transfer.push(array.buffer);
        }
      }
    }
    return rows;
  }))();
  return { results, transfer };
};
parentPort.on('message', ({ id, file: wanted, sql, params, all, statements: list }) => {
  try {
    use(wanted);
    if (list) {
      const { results, transfer } = snapshot(list);
      parentPort.postMessage({ id, rows: results }, transfer);
      return;
    }
    const statement = prepared(sql, false);
    parentPort.postMessage(all ? { id, rows: statement.all(...params) } : { id, n: statement.get(...params).n });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  }
});
`;

/** A statement of a snapshot: its SQL, and which columns hold JSON arrays of integers (u32) or numbers (f64). */
export interface SnapshotStatement {
  sql: string;
  typed?: Record<number, 'u32' | 'f64'>;
}

export class CountWorker {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(answer: { n?: number; rows?: unknown[] }): void; reject(error: Error): void }>();

  /** `COUNT(*) AS n` of `sql` against the database file `file`, computed off the event loop. */
  async count(file: string, sql: string, params: unknown[]): Promise<number> {
    return (await this.ask(file, sql, params, false)).n!;
  }

  /** Every row `sql` selects from the database file `file`, read off the event loop. */
  async rows<T>(file: string, sql: string, params: unknown[]): Promise<T[]> {
    return (await this.ask(file, sql, params, true)).rows as T[];
  }

  /**
   * The raw rows of each statement, all read in one read transaction of the database file `file` off the event loop;
   * the `typed` columns come back as Uint32Array or Float64Array.
   */
  async snapshot(file: string, statements: SnapshotStatement[]): Promise<unknown[][][]> {
    return (await this.send({ file, statements })).rows as unknown[][][];
  }

  private ask(file: string, sql: string, params: unknown[], all: boolean): Promise<{ n?: number; rows?: unknown[] }> {
    return this.send({ file, sql, params, all });
  }

  private send(message: object): Promise<{ n?: number; rows?: unknown[] }> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: require.resolve('better-sqlite3') } });
    worker.unref();
    worker.on('message', ({ id, n, rows, error }: { id: number; n?: number; rows?: unknown[]; error?: string }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (error !== undefined) waiting?.reject(new Error(`search statement failed: ${error}`));
      else waiting?.resolve({ n, rows });
    });
    // A dead worker fails what it held; the next count starts a new one.
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`count worker exited with ${code}`)));
    this.worker = worker;
    return worker;
  }
}
