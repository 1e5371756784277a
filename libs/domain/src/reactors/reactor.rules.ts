// The rules about what a reactor refers to, owned here and asked twice: by validation, which reports every problem of
// a request in one 400, and by decide, which re-checks them against the snapshots its command carries.
import type { ConfigurationShape, ReactorApplicationSnapshot, ReactorFormulaSnapshot } from './reactor.types';

/** Official formulas are every tenant's; a private one only its tenant's, and to the others it does not exist. */
export const isFormulaVisible = (
  formula: ReactorFormulaSnapshot | null,
  tenantId: string,
): formula is ReactorFormulaSnapshot =>
  formula !== null && (formula.type === 'official' || formula.tenant_id === tenantId);

/** The message for `formula.id` when the formula cannot back a new reactor of `tenantId`, else null. */
export const formulaProblem = (formula: ReactorFormulaSnapshot | null, tenantId: string): string | null => {
  // Another tenant's private formula gets the same message as a missing one.
  if (!isFormulaVisible(formula, tenantId)) {
    return 'formula.id names no reactor formula available to this tenant.';
  }
  if (formula.status !== 'verified') {
    return 'formula.id names a formula that is coming soon; a reactor needs a verified formula.';
  }
  return null;
};

/** The message for `application.id` when the application cannot be a reactor's of `tenantId`, else null. */
export const applicationProblem = (application: ReactorApplicationSnapshot | null, tenantId: string): string | null => {
  if (application === null || application.deleted === true || application.tenant_id !== tenantId) {
    return 'application.id names no application of this tenant.';
  }
  if (application.type !== 'private') {
    return `application.id must name a private application, not a ${application.type} one.`;
  }
  return null;
};

/** The shape a configuration that fits `formula`'s contract has: its settings and their types, in declared order. */
export const configurationShapeOf = (formula: Pick<ReactorFormulaSnapshot, 'configuration'>): ConfigurationShape =>
  formula.configuration.map(({ name, type }) => ({ name, type }));

/**
 * Whether a configuration of this shape fits the contract: the same settings (every declared one, nothing else), each
 * of the same type. Order does not matter: reordering a formula's settings breaks no reactor.
 */
export const shapeFitsContract = (shape: ConfigurationShape, contract: ReactorFormulaSnapshot['configuration']): boolean => {
  if (shape.length !== contract.length || new Set(shape.map(({ name }) => name)).size !== shape.length) return false;
  const declared = new Map(contract.map(({ name, type }) => [name, type]));
  return shape.every(({ name, type }) => declared.get(name) === type);
};
