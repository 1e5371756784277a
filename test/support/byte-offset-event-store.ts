// The embedded event store with EventStoreDB's kind of positions: byte offsets in the log (here 700 bytes an event)
// instead of sequence numbers. Everything else is the real store; only positions are translated, both ways.
import type { EventStore, LogPosition, RecordedEvent } from '@vault/application';

const BYTES_PER_EVENT = 700n;

const toBytes = (p: LogPosition): LogPosition => ({ commit: p.commit * BYTES_PER_EVENT, prepare: p.prepare * BYTES_PER_EVENT });
const fromBytes = (p: LogPosition | null): LogPosition | null =>
  p && { commit: p.commit / BYTES_PER_EVENT, prepare: p.prepare / BYTES_PER_EVENT };
const withBytes = (e: RecordedEvent): RecordedEvent => ({ ...e, position: toBytes(e.position) });

export class ByteOffsetEventStore implements EventStore {
  constructor(private readonly inner: EventStore) {}

  append: EventStore['append'] = async (streamId, events, expected) => {
    const result = await this.inner.append(streamId, events, expected);
    return { ...result, position: toBytes(result.position) };
  };
  appendMany: EventStore['appendMany'] = async (batch) =>
    (await this.inner.appendMany(batch)).map((result) => ({ ...result, position: toBytes(result.position) }));
  readStream: EventStore['readStream'] = async (streamId) => (await this.inner.readStream(streamId)).map(withBytes);
  readAll: EventStore['readAll'] = async (after, limit) => (await this.inner.readAll(fromBytes(after), limit)).map(withBytes);
  headPosition: EventStore['headPosition'] = async () => {
    const head = await this.inner.headPosition();
    return head && toBytes(head);
  };
  backlog: EventStore['backlog'] = (after, cap) => this.inner.backlog(fromBytes(after), cap);
  subscribe: EventStore['subscribe'] = (options) =>
    this.inner.subscribe({ ...options, after: fromBytes(options.after), onEvents: (events) => options.onEvents(events.map(withBytes)) });
  close: EventStore['close'] = () => this.inner.close();
}
