// A reactor as the API shows it: its configuration opened, its formula as it is now.
import type { ReactorConfiguration, ReactorRecord, ReactorState } from '@vault/domain';
import type { FormulaView } from '../reactor-formulas/formula-view';
import type { Caller } from '../shared/use-case';

export interface ReactorView {
  id: string;
  tenant_id: string;
  name: string;
  /**
   * The formula as GET /reactor-formulas/{id} shows it now (a reactor runs its formula's current code). Deleting a
   * formula that has reactors is refused, so null only in the moment a delete racing this reactor's creation won.
   */
  formula: FormulaView | Pick<FormulaView, 'id' | 'name'> | null;
  /** Absent from a write's answer to a caller without reactor:read: configuration values are shown only to those. */
  configuration?: ReactorConfiguration;
  application?: { id: string };
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
}

export function toReactorView(reactor: ReactorRecord, formula: FormulaView | null, configuration: ReactorConfiguration): ReactorView {
  return {
    id: reactor.id,
    tenant_id: reactor.tenant_id,
    name: reactor.name,
    formula,
    configuration,
    ...(reactor.application_id === null ? {} : { application: { id: reactor.application_id } }),
    created_by: reactor.created_by,
    created_at: reactor.created_at,
    ...(reactor.modified_by === null ? {} : { modified_by: reactor.modified_by }),
    ...(reactor.modified_at === null ? {} : { modified_at: reactor.modified_at }),
  };
}

/**
 * A write's answer: configuration values are returned only to reactor:read holders, so a caller holding reactor:create
 * or reactor:update without reactor:read gets the reactor without its configuration (which a PATCH would otherwise show
 * it whole, stored values included), and its formula's id and name only.
 */
export const shownTo = (caller: Caller, view: ReactorView): ReactorView => {
  if (caller.principal.permissions.has('reactor:read')) return view;
  // Nor the formula beyond its id and name: reading a formula (its code) needs reactor:read too.
  const { configuration: _hidden, formula, ...rest } = view;
  return { ...rest, formula: formula && { id: formula.id, name: formula.name } };
};

/** The reactor a successful create or update leaves. */
export function activeReactor(state: ReactorState): ReactorRecord {
  if (state.status !== 'active') throw new Error('The reactor is not active after the command.');
  return state.reactor;
}
