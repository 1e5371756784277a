export interface TenantState {
  id: string;
  name: string;
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
  /** Set once the tenant is deleted: a deleted tenant stays deleted (its id is never reused). */
  deleted?: true;
}
