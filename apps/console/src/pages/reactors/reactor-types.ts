import type { Formula } from '../formulas/formula-types';

export interface Reactor {
  id: string;
  tenant_id: string;
  name: string;
  formula: Formula;
  configuration?: Record<string, unknown>;
  application?: { id: string } | null;
  created_by?: string;
  created_at?: string;
  modified_by?: string;
  modified_at?: string;
}
