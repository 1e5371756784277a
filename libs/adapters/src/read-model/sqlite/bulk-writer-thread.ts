// A rebuild's second core: a worker thread with its own connection to the fresh file runs the multi-row INSERTs (and
// the checkpoint) while the main thread reads, parses and evolves the next batch. SQLite itself is most of a rebuild's
// cost, and a file has one writer at a time, so the work splits into "make the rows" here and "write them" there.

import { Worker } from 'node:worker_threads';

/** Rows for one multi-row INSERT: `head` is the statement up to VALUES, `values` rows of `width` values in turn. */
export interface BulkRows {
  head: string;
  width: number;
  values: unknown[];
}

/** Batches handed over and not yet committed, at most: enough to keep both threads busy, and memory bounded. */
const IN_FLIGHT = 2;

// Plain CommonJS so the same source runs from dist/ and under Jest; the driver's path comes from the main thread.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
for (const pragma of workerData.pragmas) db.pragma(pragma);
// Values bound per statement: well under SQLite's limit (32,766), large enough that the per-call cost vanishes.
const MAX_PARAMETERS = 960;
const statements = new Map();
function insertOf(head, width, rows) {
  const key = head + '\\u0000' + rows;
  let statement = statements.get(key);
  if (!statement) {
    const row = '(' + new Array(width).fill('?').join(', ') + ')';
    statement = db.prepare(head + ' VALUES ' + new Array(rows).fill(row).join(', '));
    statements.set(key, statement);
  }
  return statement;
}
function insertRows({ head, width, values }) {
  if (values.length % width !== 0) throw new Error('insertRows: ' + values.length + ' values are not rows of ' + width);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / width)) * width;
  let at = 0;
  for (; at + perStatement <= values.length; at += perStatement) insertOf(head, width, perStatement / width).run(values.slice(at, at + perStatement));
  if (at < values.length) insertOf(head, width, (values.length - at) / width).run(values.slice(at));
}
const saveCheckpoint = db.prepare('INSERT INTO checkpoint (id, position) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET position = excluded.position');
const write = db.transaction((inserts, checkpoint) => {
  for (const rows of inserts) insertRows(rows);
  if (checkpoint !== null) saveCheckpoint.run(checkpoint);
});
parentPort.on('message', ({ id, inserts, checkpoint, close }) => {
  try {
    if (close) db.close();
    else write.immediate(inserts, checkpoint);
    parentPort.postMessage({ id });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  }
});
`;

export class BulkWriterThread {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve(): void; reject(error: Error): void }>();
  private readonly inFlight: Array<Promise<void>> = [];
  private failure: Error | null = null;
  private sent = 0;
  private confirmed = 0;

  /** `pragmas` are run on the thread's connection first (its cache size, journal mode, synchronous). */
  constructor(file: string, pragmas: string[]) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), file, pragmas } });
    this.worker.on('message', ({ id, error }: { id: number; error?: string }) => {
      const waiting = this.waiting.get(id);
      this.waiting.delete(id);
      if (error === undefined) waiting?.resolve();
      else waiting?.reject(new Error(`rebuild writer: ${error}`));
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`rebuild writer exited with ${code}`)));
  }

  /** How many writes are committed: writes are numbered 1, 2, … in the order write() took them, and commit in it. */
  get committed(): number {
    return this.confirmed;
  }

  /**
   * Hands the inserts (and the checkpoint, when given) over to be written in one transaction, after every earlier
   * write, and returns the write's number; resolves once fewer than IN_FLIGHT writes are pending (so a caller cannot
   * run far ahead of the disk).
   */
  async write(inserts: BulkRows[], checkpoint: string | null): Promise<number> {
    if (this.failure) throw this.failure;
    const seq = ++this.sent;
    const done = this.ask({ inserts, checkpoint }).then(() => {
      this.confirmed = seq;
    });
    // Failures surface through idle() or the next write; this keeps an early one from being unhandled meanwhile.
    done.catch((error: Error) => (this.failure ??= error));
    this.inFlight.push(done);
    while (this.inFlight.length >= IN_FLIGHT) await this.inFlight.shift();
    return seq;
  }

  /** Resolves when everything handed over is committed: the file may then be read or written by another connection. */
  async idle(): Promise<void> {
    while (this.inFlight.length > 0) await this.inFlight.shift();
    if (this.failure) throw this.failure;
  }

  /** Waits for the pending writes, closes the thread's connection and ends the thread. */
  async close(): Promise<void> {
    try {
      await this.idle();
      await this.ask({ close: true });
    } finally {
      await this.worker.terminate();
    }
  }

  /** Ends the thread at once (a failed rebuild), whatever it was writing. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private ask(message: { inserts?: BulkRows[]; checkpoint?: string | null; close?: true }): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }
}
