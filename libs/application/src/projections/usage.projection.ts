// The usage report's read model (GET /tenants/self/reports/usage): two sets the adapters keep counts of as they change,
// so that the report reads a few counters, never the rows. `usage_tokens` holds one document per live token (tenant,
// type, creation time: no data, no metadata); `usage_active` holds one document per token active in a calendar month
// (UTC): created, updated, or named by an access record (revealed, detokenized, used). A document of either set is
// written once per key, so each token counts once however often it is touched; the counters follow the documents.
import { TOKEN_EVENT_TYPES, tokenKey, type AccessRecordedData, type TokenEvent } from '@vault/domain';
import type { RecordedEvent } from '../ports/event-store';
import type { Projection } from './projection';

export const USAGE_TOKENS = 'usage_tokens';
export const USAGE_ACTIVE = 'usage_active';

/** A live token as the report counts it. */
export interface UsageTokenDocument {
  tenant_id: string;
  type: string;
  created_at: string;
}

/** A token active in `month`; its id is only in the document's key. */
export interface UsageActiveDocument {
  tenant_id: string;
  /** `YYYY-MM`, UTC. */
  month: string;
}

/** The calendar month (UTC) of an ISO timestamp or a date, as `YYYY-MM`. */
export const usageMonthOf = (at: string | Date): string => (typeof at === 'string' ? new Date(at) : at).toISOString().slice(0, 7);

/**
 * The key of a token's activity in a month: tenant, month, token id (Meilisearch ids allow letters, digits, `-` and
 * `_`: tenant and token ids are UUIDs, the month is `YYYY-MM`).
 */
export const usageActiveKey = (tenantId: string, month: string, tokenId: string): string => `${tenantId}_${month}_${tokenId}`;

/** The key of the events that name no token (an access record of a search, a reactor or a proxy): never stored. */
const NO_TOKEN = 'none';

export const usageTokensProjection: Projection<UsageTokenDocument> = {
  collection: USAGE_TOKENS,
  eventTypes: TOKEN_EVENT_TYPES,
  documentId: (event) => tokenKey((event.data as TokenEvent['data']).tenant_id, (event.data as TokenEvent['data']).id),
  // A token counts from its creation until it is deleted (by a caller or the expiry sweep): an expired token the sweep
  // has not deleted yet is still held, and still counted.
  evolve(doc, event) {
    const token = event as unknown as TokenEvent;
    switch (token.type) {
      case 'TokenCreated':
        return { tenant_id: token.data.tenant_id, type: token.data.type, created_at: token.data.created_at };
      case 'TokenUpdated':
        return doc && { ...doc, type: token.data.type };
      case 'TokenDeleted':
        return null;
    }
  },
};

/** The token an event shows activity of, and when; null when it names no token. */
function activityOf(event: RecordedEvent): { tenantId: string; tokenId: string; at: string } | null {
  switch (event.type) {
    case 'TokenCreated': {
      const data = event.data as Extract<TokenEvent, { type: 'TokenCreated' }>['data'];
      return { tenantId: data.tenant_id, tokenId: data.id, at: data.created_at };
    }
    case 'TokenUpdated': {
      const data = event.data as Extract<TokenEvent, { type: 'TokenUpdated' }>['data'];
      return { tenantId: data.tenant_id, tokenId: data.id, at: data.modified_at };
    }
    case 'AccessRecorded': {
      // A search's record holds a count, not the tokens it showed: those are not counted here.
      const data = event.data as AccessRecordedData;
      if (data.entity_type !== 'token' || !data.entity_id) return null;
      return { tenantId: data.tenant_id, tokenId: data.entity_id, at: data.created_at };
    }
    default:
      return null;
  }
}

export const usageActiveProjection: Projection<UsageActiveDocument> = {
  collection: USAGE_ACTIVE,
  eventTypes: ['TokenCreated', 'TokenUpdated', 'AccessRecorded'],
  documentId(event) {
    const activity = activityOf(event);
    return activity ? usageActiveKey(activity.tenantId, usageMonthOf(activity.at), activity.tokenId) : NO_TOKEN;
  },
  // Set membership: the first event of a token in a month writes the document, later ones leave it as it is (so events
  // of the token's stream and of the audit stream may come in any order of their revisions).
  evolve(doc, event) {
    if (doc) return doc;
    const activity = activityOf(event);
    return activity && { tenant_id: activity.tenantId, month: usageMonthOf(activity.at) };
  },
};
