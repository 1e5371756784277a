// Token objects as the API answers them, and the token types with what their data must be.
export interface Token {
  id: string;
  type: string;
  tenant_id: string;
  data?: unknown;
  fingerprint?: string;
  fingerprint_expression?: string;
  mask?: string;
  containers?: string[];
  metadata?: Record<string, string>;
  search_indexes?: string[];
  expires_at?: string;
  created_by?: string;
  created_at?: string;
  modified_by?: string;
  modified_at?: string;
}

export const TOKEN_TYPES: Array<{ type: string; label: string; data: string }> = [
  { type: 'token', label: 'token (any JSON)', data: 'Any JSON value: "text", 42, {"a": 1}. Text that is not JSON is stored as a string.' },
  { type: 'card_number', label: 'card_number', data: '13 to 19 digits, Luhn-valid.' },
  { type: 'social_security_number', label: 'social_security_number', data: '9 digits, optionally 123-45-6789.' },
  { type: 'employer_id_number', label: 'employer_id_number', data: '9 digits, optionally 12-3456789.' },
];
