export interface Webhook {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  events: string[];
  enabled: boolean;
  created_by?: string;
  created_at?: string;
  modified_by?: string;
  modified_at?: string;
  /** Only in the answer to a create. */
  signing_secret?: string;
}

export interface Delivery {
  event_id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  first_attempt_at?: string;
  last_attempt_at?: string;
  next_attempt_at?: string | null;
}

/** The event types a webhook may subscribe to, grouped by what they are about. */
export const EVENT_GROUPS: Array<[string, string[]]> = [
  ['token', ['token.created', 'token.updated', 'token.deleted']],
  ['application', ['application.created', 'application.updated', 'application.deleted', 'application.key_regenerated']],
  ['reactor formula', ['reactor_formula.created', 'reactor_formula.updated', 'reactor_formula.deleted']],
  ['reactor', ['reactor.created', 'reactor.updated', 'reactor.deleted']],
  ['proxy', ['proxy.created', 'proxy.updated', 'proxy.deleted']],
  ['tenant', ['tenant.updated']],
];

/** Signing secrets just issued, by webhook id: shown once on the webhook's page, then forgotten. */
export const issuedSecrets = new Map<string, string>();
