// What the event-store decorators that seal part of some events share: every event appended goes through `sealAll`,
// every event read (a stream, the log, a subscription) through `openAll`, and the rest passes through untouched.
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  LogPosition,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
} from '../ports/event-store';

export abstract class SealingEventStore implements EventStore {
  constructor(protected readonly inner: EventStore) {}

  /** The events as they are to be stored: sealed where they hold what the decorator seals. */
  protected abstract sealAll(events: EventToAppend[]): Promise<EventToAppend[]>;

  /** The events as readers get them: opened, or without what can no longer be opened. */
  protected abstract openAll(events: RecordedEvent[]): Promise<RecordedEvent[]>;

  /** Called once an append of `events` (as given, before sealing) is durable. */
  protected appended(_streamId: string, _events: EventToAppend[], _result: AppendResult): void {}

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    const result = await this.inner.append(streamId, await this.sealAll(events), expected);
    this.appended(streamId, events, result);
    return result;
  }

  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    const sealed: StreamAppend[] = [];
    for (const part of batch) sealed.push({ ...part, events: await this.sealAll(part.events) });
    const results = await this.inner.appendMany(sealed);
    batch.forEach((part, i) => this.appended(part.streamId, part.events, results[i]));
    return results;
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readStream(streamId));
  }

  async readLastEvent(streamId: string): Promise<RecordedEvent | null> {
    const last = this.inner.readLastEvent ? await this.inner.readLastEvent(streamId) : ((await this.inner.readStream(streamId)).at(-1) ?? null);
    return last === null ? null : ((await this.openAll([last]))[0] ?? null);
  }

  async readAll(after: LogPosition | null, limit: number): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readAll(after, limit));
  }

  headPosition(): Promise<LogPosition | null> {
    return this.inner.headPosition();
  }

  backlog(after: LogPosition | null, cap: number) {
    return this.inner.backlog(after, cap);
  }

  subscribe(options: SubscribeOptions): Subscription {
    return this.inner.subscribe({ ...options, onEvents: async (events) => options.onEvents(await this.openAll(events)) });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
