// A reactor formula as the API shows it, on its own and inside a reactor.
import type { ReactorFormula } from '@vault/domain';

/** modified_by/modified_at only once it has been modified. */
export type FormulaView = Omit<ReactorFormula, 'tenant_id' | 'modified_by' | 'modified_at'> & {
  modified_by?: string;
  modified_at?: string;
};

export function toFormulaView(formula: ReactorFormula): FormulaView {
  const { tenant_id: _tenant, modified_by, modified_at, ...rest } = formula;
  return { ...rest, ...(modified_by ? { modified_by } : {}), ...(modified_at ? { modified_at } : {}) };
}
