import { evolveToken, initialTokenState, TOKEN_EVENT_TYPES, TokenEvent, tokenKey, TokenRecord } from '@vault/domain';
import type { Projection } from './projection';

/** The token read-model document is the token record itself: data stays encrypted, only keyed hashes are searchable. */
export const tokensProjection: Projection<TokenRecord> = {
  collection: 'tokens',
  eventTypes: TOKEN_EVENT_TYPES,
  // Ids are unique within a tenant only.
  documentId: (event) => tokenKey((event.data as TokenEvent['data']).tenant_id, (event.data as TokenEvent['data']).id),
  evolve(doc, event) {
    const state = evolveToken(doc ? { status: 'active', token: doc } : initialTokenState(), event as unknown as TokenEvent);
    return state.status === 'active' ? state.token : null;
  },
};
