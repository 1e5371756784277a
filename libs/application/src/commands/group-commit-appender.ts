// Event appends of concurrent commands, group-committed: every append() made in one turn of the event loop (or while
// the previous transaction was being written) goes into the next EventStore.appendMany, so 32 concurrent creates cost
// one transaction, and one wake-up of the projector (which then applies them in one read-model commit), instead of 32.
//
// Each append keeps its own outcome. appendMany is all or nothing and names the stream whose revision was stale, so
// that append alone is refused (its command retries from fresh state, or answers 409) and the rest of the group is
// appended again without it. Any other failure is not attributable: the group's appends are then made one by one, so
// each gets its own result or error. That needs appendMany to be all or nothing, which only the embedded store is
// (EventStoreDB appends a batch stream by stream): use this over the embedded store only.
import { AppendResult, EventStore, EventToAppend, ExpectedRevision, StreamAppend, WrongExpectedRevisionError } from '../ports/event-store';

interface Pending {
  part: StreamAppend;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

/** Most streams in one transaction: a group of this many appends stays far below a millisecond's write. */
export const DEFAULT_GROUP_COMMIT_STREAMS = 256;

export class GroupCommitAppender {
  private queue: Pending[] = [];
  /** The drain loop, while one is scheduled or running: append() calls meanwhile only queue. */
  private draining: Promise<void> | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly maxStreams = DEFAULT_GROUP_COMMIT_STREAMS,
  ) {
    if (!Number.isInteger(maxStreams) || maxStreams < 1) throw new Error('maxStreams must be a positive integer');
  }

  /** Resolves once the events are durable, as EventStore.append does, with this stream's result. */
  append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ part: { streamId, events, expected }, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Resolves once every append queued so far has been written or refused. */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      // The rest of this turn's appends join the group.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await this.commit(this.takeGroup());
    }
    this.draining = null;
  }

  /** The oldest appends, at most one per stream (appendMany takes a stream once; a second waits for the next group). */
  private takeGroup(): Pending[] {
    const group: Pending[] = [];
    const streams = new Set<string>();
    const rest: Pending[] = [];
    for (const pending of this.queue) {
      if (group.length < this.maxStreams && !streams.has(pending.part.streamId)) {
        streams.add(pending.part.streamId);
        group.push(pending);
      } else rest.push(pending);
    }
    this.queue = rest;
    return group;
  }

  private async commit(group: Pending[]): Promise<void> {
    let pending = group;
    while (pending.length > 0) {
      try {
        const results = await this.events.appendMany(pending.map(({ part }) => part));
        pending.forEach((p, i) => p.resolve(results[i]));
        return;
      } catch (error) {
        const stale = error instanceof WrongExpectedRevisionError ? pending.findIndex(({ part }) => part.streamId === error.streamId) : -1;
        if (stale >= 0) {
          pending[stale].reject(error);
          pending = pending.filter((_, i) => i !== stale);
          continue;
        }
        if (pending.length === 1) {
          pending[0].reject(error);
          return;
        }
        await this.oneByOne(pending);
        return;
      }
    }
  }

  private async oneByOne(pending: Pending[]): Promise<void> {
    for (const { part, resolve, reject } of pending) {
      try {
        resolve(await this.events.append(part.streamId, part.events, part.expected));
      } catch (error) {
        reject(error);
      }
    }
  }
}
