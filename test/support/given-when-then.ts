// given(events).when(command).then(events | error): a test reads as the rule it checks, for any decider.
import { DomainError, type DomainErrorKind, type FieldErrors } from '@vault/domain/shared/errors';
import type { Decider } from '@vault/domain/shared/decider';
import type { CommandContext } from '@vault/domain/shared/events';

/**
 * The part of Jest's (or Vitest's) `expect` used here, read from the global at call time, so the helper binds to no
 * test runner, and a failing case still shows the runner's own diff.
 */
interface Matchers {
  toEqual(expected: unknown): void;
  toBe(expected: unknown): void;
  toBeInstanceOf(expected: unknown): void;
  toMatchObject(expected: object): void;
  toContain(expected: string): void;
  toMatch(expected: RegExp): void;
}

const expectFromRunner = (actual: unknown): Matchers => {
  const expect = (globalThis as { expect?: (actual: unknown) => Matchers }).expect;
  if (!expect) throw new Error('given/when/then runs inside a test runner that defines a global expect.');
  return expect(actual);
};

export type { Decider } from '@vault/domain/shared/decider';

/** The rejection a command should meet. `errors` is matched as a subset; `message` as a substring or pattern. */
export interface ExpectedError {
  error: DomainErrorKind;
  errors?: FieldErrors;
  message?: string | RegExp;
}

export interface Then<Event> {
  /** Asserts the exact events (`[]` for none), or the DomainError, the command produces. */
  then(expected: Event[] | ExpectedError): void;
}

export interface When<Command, Event, Context> {
  when(command: Command, context?: Context): Then<Event>;
}

/**
 * Builds `given` for one decider. `defaultContext` is used by every `when` that passes none, so a spec sets its
 * tenant, actor and clock once and overrides them only where the rule is about them.
 */
export const givenWhenThenFor = <Command, State, Event, Context = CommandContext>(
  decider: Decider<Command, State, Event, Context>,
  defaultContext: Context,
) => ({
  given: (events: Event[] = []): When<Command, Event, Context> => ({
    when: (command, context = defaultContext) => ({
      then: (expected) => {
        const state = events.reduce(decider.evolve, decider.initialState());
        const decide = () => decider.decide(command, state, context);
        if (Array.isArray(expected)) {
          expectFromRunner(decide()).toEqual(expected);
          return;
        }
        expectDomainError(decide, expected);
      },
    }),
  }),
});

const expectDomainError = (decide: () => unknown, expected: ExpectedError): void => {
  let outcome: unknown;
  try {
    outcome = decide();
  } catch (error) {
    expectFromRunner(error).toBeInstanceOf(DomainError);
    const { kind, errors, message } = error as DomainError;
    expectFromRunner(kind).toBe(expected.error);
    if (expected.errors) expectFromRunner(errors).toMatchObject(expected.errors);
    if (typeof expected.message === 'string') expectFromRunner(message).toContain(expected.message);
    if (expected.message instanceof RegExp) expectFromRunner(message).toMatch(expected.message);
    return;
  }
  throw new Error(`Expected a DomainError '${expected.error}', but the command was accepted: ${JSON.stringify(outcome)}`);
};
