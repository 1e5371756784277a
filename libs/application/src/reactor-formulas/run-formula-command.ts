// How every formula write runs: its command on the formula's stream, checked, for a change, against the formula's
// reactors as they are in the attempt that decides. A change that would break one is a 409 naming them.
import {
  assertFormulaChangeBreaksNoReactor,
  formulaStream,
  reactorFormulaDecider,
  type CommandContext,
  type FormulaChange,
  type ReactorFormula,
  type ReactorFormulaCommand,
  type ReactorFormulaEvent,
  type ReactorFormulaState,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { FormulaReactors } from './formula-reactors';

export const runFormulaCommand = async (runner: CommandRunner, ctx: CommandContext, command: ReactorFormulaCommand, reactors?: FormulaReactors) =>
  runner.run(reactorFormulaDecider, formulaStream(command.data.id), reactors ? checkedAgainst(reactors, command, ctx) : command, ctx);

/**
 * The command, built in the runner's state callback so that every attempt checks it against the formula's reactors as
 * they are then. The decider's own rules answer first: a caller who may not change this formula (another tenant's: 404;
 * an official one: 403) learns nothing of its reactors. Then a change that would break one is the 409 naming them.
 */
const checkedAgainst =
  (reactors: FormulaReactors, command: ReactorFormulaCommand, ctx: CommandContext) =>
  async (state: ReactorFormulaState): Promise<ReactorFormulaCommand> => {
    const change = formulaChangeOf(reactorFormulaDecider.decide(command, state, ctx));
    if (change !== null) assertFormulaChangeBreaksNoReactor(change, await reactors.of(command.data.id));
    return command;
  };

/** What the decided events change for the formula's reactors: nothing for a create (a new formula has none) or a no-op. */
const formulaChangeOf = (events: ReactorFormulaEvent[]): FormulaChange | null => {
  const last = events[events.length - 1];
  if (last === undefined || last.type === 'ReactorFormulaCreated') return null;
  return last.type === 'ReactorFormulaDeleted' ? 'deleted' : last.data.configuration;
};

/** The formula a create or an update leaves. */
export const recordedFormula = (formula: ReactorFormula | null): ReactorFormula => {
  if (!formula) throw new Error('A reactor formula command left no formula behind.');
  return formula;
};
