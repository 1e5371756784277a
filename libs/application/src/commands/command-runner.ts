// Runs a command against one aggregate (or one command on each of several, appended together): read its stream,
// fold, decide, append at the read revision. A lost race is retried from fresh state; only when retries run out does
// the caller see a 409.
import { CommandContext, conflict, Decider, DomainEvent } from '@vault/domain';
import { EventStore, EventToAppend, ExpectedRevision, LogPosition, RecordedEvent, WrongExpectedRevisionError } from '../ports/event-store';
import { GroupCommitAppender } from './group-commit-appender';
import type { ProjectionWaiter } from '../projections/projector';
import { currentRequestContext } from '../ports/request-context';
import { nextTurn } from '../shared/turns';

export interface CommandOutcome<TState, TEvent> {
  /** What the command recorded: [] when the decider found nothing to change. */
  events: TEvent[];
  /** The aggregate's state after them. */
  state: TState;
  /** Where the last of them is in the log; null when nothing was recorded. */
  position: LogPosition | null;
}

/** The command, or a function building it from the current state (re-run on every retry, so nothing is stale). */
export type CommandOrBuilder<TState, TCommand> = TCommand | ((state: TState) => TCommand | Promise<TCommand>);

/** One stream's command in a CommandRunner.runMany batch. */
export interface BatchCommand<TState, TCommand> {
  streamId: string;
  command: CommandOrBuilder<TState, TCommand>;
}

interface Decision<TState, TEvent> {
  /** The state the command was decided on. */
  state: TState;
  events: TEvent[];
  expected: ExpectedRevision;
}

export interface CommandRunnerOptions {
  maxAttempts: number;
  /** How long a write waits for the read models before answering anyway (VAULT_WRITE_WAIT_MS). */
  writeWaitMs: number;
  /**
   * Group-commit the appends of concurrent run() calls (GroupCommitAppender). Only over a store whose appendMany is
   * all or nothing: the embedded one.
   */
  groupCommit?: boolean;
}

export interface RunOptions {
  /**
   * The stream is named by an id this process has just generated at random (a new token's UUID): the first attempt
   * is decided on the initial state and appended at `no_stream` without reading the stream. Should it exist after
   * all, the append is a lost race and the retry reads it like any other.
   */
  freshStream?: boolean;
}

export class CommandRunner {
  private readonly appender: Pick<EventStore, 'append'>;

  constructor(
    private readonly events: EventStore,
    private readonly waiter: ProjectionWaiter,
    private readonly options: CommandRunnerOptions,
  ) {
    this.appender = options.groupCommit ? new GroupCommitAppender(events) : events;
  }

  /** Runs `command` (the domain's decider as it is) against the stream `streamId`. */
  async run<TState, TCommand, TEvent extends DomainEvent>(
    decider: Decider<TCommand, TState, TEvent>,
    streamId: string,
    /** The command, or a function building it from the current state (re-run on every retry, so nothing is stale). */
    command: CommandOrBuilder<TState, TCommand>,
    ctx: CommandContext,
    options: RunOptions = {},
  ): Promise<CommandOutcome<TState, TEvent>> {
    for (let attempt = 1; ; attempt++) {
      const history = attempt === 1 && options.freshStream ? [] : await this.events.readStream(streamId);
      const decision = await this.decideOn(decider, history, command, ctx);
      if (decision.events.length === 0) return { events: [], state: decision.state, position: null };
      try {
        const result = await this.appender.append(streamId, toAppend(decision.events, ctx), decision.expected);
        await this.awaitReadModels(result.position);
        return { events: decision.events, state: evolveAll(decider, decision.state, decision.events), position: result.position };
      } catch (error) {
        this.rethrowUnlessRetry(error, attempt);
      }
    }
  }

  /**
   * Runs one command per stream (distinct streams, e.g. the tokens of one tokenize request) and appends what they
   * decide in one EventStore.appendMany: with the embedded store all or nothing. Every command is decided on fresh
   * state before anything is appended; a lost race on any stream retries the whole batch from fresh state, and a 409
   * follows the last attempt. The read models are awaited once, for the batch's last position. Outcomes in batch order.
   */
  async runMany<TState, TCommand, TEvent extends DomainEvent>(
    decider: Decider<TCommand, TState, TEvent>,
    batch: ReadonlyArray<BatchCommand<TState, TCommand>>,
    ctx: CommandContext,
  ): Promise<Array<CommandOutcome<TState, TEvent>>> {
    if (new Set(batch.map(({ streamId }) => streamId)).size !== batch.length) {
      throw new Error('runMany takes each stream at most once.');
    }
    for (let attempt = 1; ; attempt++) {
      const histories = await Promise.all(batch.map(({ streamId }) => this.events.readStream(streamId)));
      const decisions: Array<Decision<TState, TEvent>> = [];
      // One after another, in batch order, with a turn of the event loop between them: a builder may seal (encrypt),
      // which takes a millisecond or so without ever waiting for I/O, and a batch holds up to 100.
      for (const [i, { command }] of batch.entries()) {
        if (i > 0) await nextTurn();
        decisions.push(await this.decideOn(decider, histories[i], command, ctx));
      }
      const writes = batch
        .map(({ streamId }, i) => ({ streamId, decision: decisions[i] }))
        .filter(({ decision }) => decision.events.length > 0);
      if (writes.length === 0) return decisions.map(({ state }) => ({ events: [], state, position: null }));
      try {
        const results = await this.events.appendMany(
          writes.map(({ streamId, decision }) => ({ streamId, events: toAppend(decision.events, ctx), expected: decision.expected })),
        );
        const positions = new Map(writes.map(({ streamId }, i) => [streamId, results[i].position]));
        await this.awaitReadModels(results[results.length - 1].position);
        return batch.map(({ streamId }, i) => ({
          events: decisions[i].events,
          state: evolveAll(decider, decisions[i].state, decisions[i].events),
          position: positions.get(streamId) ?? null,
        }));
      } catch (error) {
        this.rethrowUnlessRetry(error, attempt);
      }
    }
  }

  /** Folds a stream's history and decides the command on it. */
  private async decideOn<TState, TCommand, TEvent extends DomainEvent>(
    decider: Decider<TCommand, TState, TEvent>,
    history: RecordedEvent[],
    command: CommandOrBuilder<TState, TCommand>,
    ctx: CommandContext,
  ): Promise<Decision<TState, TEvent>> {
    const state = evolveAll(decider, decider.initialState(), history.map((recorded) => ({ type: recorded.type, data: recorded.data }) as TEvent));
    const current = typeof command === 'function' ? await (command as (s: TState) => TCommand | Promise<TCommand>)(state) : command;
    return { state, events: decider.decide(current, state, ctx), expected: history.length === 0 ? 'no_stream' : history[history.length - 1].revision };
  }

  /** A lost race is retried while attempts remain, then answered 409; any other failure is passed on at once. */
  private rethrowUnlessRetry(error: unknown, attempt: number): void {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    if (attempt >= this.options.maxAttempts) {
      throw conflict('The resource was changed by another request at the same time; retry the request.');
    }
  }

  private async awaitReadModels(position: LogPosition): Promise<void> {
    const applied = await this.waiter.waitFor(position, this.options.writeWaitMs);
    const context = currentRequestContext();
    if (!applied && context) context.projectionPending = true;
  }
}

const evolveAll = <TState, TEvent>(decider: { evolve(state: TState, event: TEvent): TState }, state: TState, events: readonly TEvent[]): TState =>
  events.reduce((current, event) => decider.evolve(current, event), state);

/** The decided events with the metadata every stored event carries. */
const toAppend = (events: readonly DomainEvent[], ctx: CommandContext): EventToAppend[] =>
  events.map((event) => ({
    type: event.type,
    data: event.data,
    metadata: { tenant_id: ctx.tenantId, actor: ctx.actor, timestamp: ctx.now.toISOString(), correlation_id: ctx.correlationId },
  }));
