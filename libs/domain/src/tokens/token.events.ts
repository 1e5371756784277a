// Token events: plain data, stored forever under these type strings. They never hold plaintext token data or anything
// evaluated from it: the data and the evaluated mask are sealed under the token's
// data key, the fingerprint and search values are keyed hashes, which the log keeps sealed under that key as well
// (SealedTokenIndexEventStore in libs/application: every reader of the log sees them as below).
import { eventTypesOf, type DomainEvent } from '../shared/events';
import type { EncryptedData } from './sealed-data';
import type { TokenType } from './token-types';

/** Everything a create or an update sets, computed by the application layer before decide. */
export interface TokenContent {
  type: TokenType;
  encrypted: EncryptedData;
  /** Base58 keyed hash of type and the evaluated fingerprint expression. */
  fingerprint: string;
  fingerprint_expression: string;
  /** The mask expression, or null when the token has none. */
  mask: string | null;
  /**
   * The evaluated mask, sealed under the token's data key like the data (it is computed from the data, so deleting the
   * token must shred it too); null when the token has no mask.
   */
  masked: EncryptedData | null;
  /** Lower-case container paths, each `/…/`, 1 to 10, without duplicates. */
  containers: string[];
  metadata: Record<string, string>;
  /** The search index expressions (never their evaluated values). */
  search_indexes: string[];
  /** Keyed hashes of the normalised evaluated search indexes, without duplicates; what `data:` terms match. */
  search_hashes: string[];
  /** ISO 8601, or null when the token never expires. */
  expires_at: string | null;
}

export interface TokenCreatedData extends TokenContent {
  id: string;
  tenant_id: string;
  created_by: string;
  /** ISO 8601. */
  created_at: string;
}

/** Carries the whole token after the patch, not a diff, so read models need no earlier event to apply it. */
export interface TokenUpdatedData extends TokenContent {
  id: string;
  tenant_id: string;
  modified_by: string;
  /** ISO 8601. */
  modified_at: string;
}

/** `expired`: removed by the expiry sweep rather than by a caller's DELETE. */
export type TokenDeletionReason = 'requested' | 'expired';

export interface TokenDeletedData {
  id: string;
  tenant_id: string;
  reason: TokenDeletionReason;
  deleted_by: string;
  /** ISO 8601. */
  deleted_at: string;
}

export type TokenCreated = DomainEvent<'TokenCreated', TokenCreatedData>;
export type TokenUpdated = DomainEvent<'TokenUpdated', TokenUpdatedData>;
export type TokenDeleted = DomainEvent<'TokenDeleted', TokenDeletedData>;

export type TokenEvent = TokenCreated | TokenUpdated | TokenDeleted;

export const TOKEN_EVENT_TYPES = eventTypesOf<TokenEvent['type']>({ TokenCreated: true, TokenUpdated: true, TokenDeleted: true });

export const isTokenEvent = (event: DomainEvent): event is TokenEvent =>
  (TOKEN_EVENT_TYPES as readonly string[]).includes(event.type);

export const TOKEN_STREAM_PREFIX = 'token-';

/**
 * Token ids are scoped to their tenant (an id used in another tenant is as free as an unused one), so a token's
 * key everywhere (its stream, its read-model documents) is the tenant and the id together. Token ids are UUIDs, so the
 * last `_` separates them.
 */
export const tokenKey = (tenantId: string, id: string): string => `${tenantId}_${id}`;

export const parseTokenKey = (key: string): { tenantId: string; id: string } => {
  const at = key.lastIndexOf('_');
  return { tenantId: key.slice(0, at), id: key.slice(at + 1) };
};

/** One stream per token of a tenant. */
export const tokenStream = (tenantId: string, id: string): string => TOKEN_STREAM_PREFIX + tokenKey(tenantId, id);
