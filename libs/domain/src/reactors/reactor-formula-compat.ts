// Which reactors a formula change would break (updating a formula so that an existing reactor's
// configuration no longer fits its contract, or deleting a formula that has reactors, is a 409 naming them). Decided
// on the reactors' configuration shapes, so no configuration is decrypted to answer it.
import { DomainError } from '../shared/errors';
import { shapeFitsContract } from './reactor.rules';
import type { ConfigurationShape, ReactorFormulaSnapshot } from './reactor.types';

/** What the check needs of each reactor of the formula (a ReactorRecord or a read-model document is one). */
export interface ReactorOfFormula {
  id: string;
  name: string;
  configuration_shape: ConfigurationShape;
}

/** The new configuration contract of an updated formula, or `deleted`. */
export type FormulaChange = ReactorFormulaSnapshot['configuration'] | 'deleted';

/** How many reactors a 409 names in `errors.reactors` (its message names the first few): the rest are counted. */
export const MAX_NAMED_REACTORS = 100;
const NAMED_IN_MESSAGE = 5;

/**
 * The reactors (of the formula being changed) whose configuration would no longer fit: every one when it is deleted;
 * after an update, those whose settings are not exactly the new contract's (a setting added, removed or retyped breaks
 * every reactor, since a configuration holds every declared setting and nothing else; a reordering or a new
 * description breaks none). In the order given.
 */
export const reactorsBrokenByFormulaChange = <R extends ReactorOfFormula>(change: FormulaChange, reactors: readonly R[]): R[] =>
  change === 'deleted' ? [...reactors] : reactors.filter((reactor) => !shapeFitsContract(reactor.configuration_shape, change));

/**
 * The 409 for a formula change that would break `broken` (non-empty). Reactor names and ids are not secret; for an
 * official formula the operator sees those of every tenant. `errors.reactors` lists `<name> (<id>)`.
 */
export const formulaChangeConflict = (change: FormulaChange, broken: readonly Pick<ReactorOfFormula, 'id' | 'name'>[]): DomainError => {
  const named = broken.map(({ id, name }) => `${name} (${id})`);
  const listed = (max: number) =>
    named.length <= max ? named : [...named.slice(0, max), `and ${named.length - max} more`];
  const count = broken.length === 1 ? '1 reactor' : `${broken.length} reactors`;
  const reactorList = listed(NAMED_IN_MESSAGE).join(', ');
  const message =
    change === 'deleted'
      ? `This formula has ${count}: ${reactorList}. Delete them before the formula.`
      : `This change to the formula's configuration would break ${count}: ${reactorList}. A reactor's configuration ` +
        'holds exactly the settings its formula declares: delete those reactors first, or make the change in a new formula.';
  return new DomainError('conflict', message, { reactors: listed(MAX_NAMED_REACTORS) });
};

/** Throws formulaChangeConflict when the change breaks any of `reactors` (the formula's reactors, of every tenant). */
export const assertFormulaChangeBreaksNoReactor = (change: FormulaChange, reactors: readonly ReactorOfFormula[]): void => {
  const broken = reactorsBrokenByFormulaChange(change, reactors);
  if (broken.length > 0) throw formulaChangeConflict(change, broken);
};
