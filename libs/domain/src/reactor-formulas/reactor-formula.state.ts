// A formula as the decisions see it. The same shape suits a read-model document.
import type { ReactorFormulaFields } from './reactor-formula.types';

export interface ReactorFormula extends ReactorFormulaFields {
  created_by: string;
  created_at: string;
  /** Null until the first update. */
  modified_by: string | null;
  modified_at: string | null;
}

/** Null when the formula was never created or has been deleted. */
export type ReactorFormulaState = ReactorFormula | null;

export const initialReactorFormulaState = (): ReactorFormulaState => null;
