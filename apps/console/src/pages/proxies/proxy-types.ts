export type Transform =
  | { type: 'code'; code: string }
  | { type: 'tokenize'; fields: Array<{ json_path: string; token: { type: string; containers?: string[]; metadata?: Record<string, string> } }> }
  | { type: 'mask'; fields: string[] };

export interface Proxy {
  id: string;
  tenant_id: string;
  name: string;
  key?: string;
  destination_url?: string;
  request_transforms?: Transform[];
  response_transforms?: Transform[];
  application?: { id: string } | null;
  configuration?: Record<string, string>;
  require_auth: boolean;
  created_by?: string;
  created_at?: string;
  modified_by?: string;
  modified_at?: string;
}
