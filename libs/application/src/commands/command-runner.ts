// Runs a command against one aggregate: read its stream, fold, decide, append at the read revision.
// A lost race is retried from fresh state; only when retries run out does the caller see a 409.
import { CommandContext, conflict, Decider, DomainEvent } from '@vault/domain';
import { EventStore, LogPosition, WrongExpectedRevisionError } from '../ports/event-store';
import type { ProjectionWaiter } from '../projections/projector';
import { currentRequestContext } from '../request-context';

export interface CommandOutcome<TState, TEvent> {
  /** What the command recorded: [] when the decider found nothing to change. */
  events: TEvent[];
  /** The aggregate's state after them. */
  state: TState;
  /** Where the last of them is in the log; null when nothing was recorded. */
  position: LogPosition | null;
}

export interface CommandRunnerOptions {
  maxAttempts: number;
  /** How long a write waits for the read models before answering anyway (VAULT_WRITE_WAIT_MS). */
  writeWaitMs: number;
}

export class CommandRunner {
  constructor(
    private readonly events: EventStore,
    private readonly waiter: ProjectionWaiter,
    private readonly options: CommandRunnerOptions,
  ) {}

  /** Runs `command` (the domain's decider as it is) against the stream `streamId`. */
  async run<TState, TCommand, TEvent extends DomainEvent>(
    decider: Decider<TCommand, TState, TEvent>,
    streamId: string,
    /** The command, or a function building it from the current state (re-run on every retry, so nothing is stale). */
    command: TCommand | ((state: TState) => TCommand | Promise<TCommand>),
    ctx: CommandContext,
  ): Promise<CommandOutcome<TState, TEvent>> {
    for (let attempt = 1; ; attempt++) {
      const history = await this.events.readStream(streamId);
      let state = decider.initialState();
      for (const recorded of history) {
        state = decider.evolve(state, { type: recorded.type, data: recorded.data } as TEvent);
      }
      const current = typeof command === 'function' ? await (command as (s: TState) => TCommand | Promise<TCommand>)(state) : command;
      const decided = decider.decide(current, state, ctx);
      if (decided.length === 0) return { events: [], state, position: null };
      const expected = history.length === 0 ? 'no_stream' : history[history.length - 1].revision;
      try {
        const result = await this.events.append(
          streamId,
          decided.map((event) => ({
            type: event.type,
            data: event.data,
            metadata: {
              tenant_id: ctx.tenantId,
              actor: ctx.actor,
              timestamp: ctx.now.toISOString(),
              correlation_id: ctx.correlationId,
            },
          })),
          expected,
        );
        for (const event of decided) state = decider.evolve(state, event);
        await this.awaitReadModels(result.position);
        return { events: decided, state, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        if (attempt >= this.options.maxAttempts) {
          throw conflict('The resource was changed by another request at the same time; retry the request.');
        }
      }
    }
  }

  private async awaitReadModels(position: LogPosition): Promise<void> {
    const applied = await this.waiter.waitFor(position, this.options.writeWaitMs);
    const context = currentRequestContext();
    if (!applied && context) context.projectionPending = true;
  }
}
