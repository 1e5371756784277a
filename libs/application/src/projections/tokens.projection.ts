import { evolveToken, initialTokenState, TokenEvent, TokenRecord } from '@vault/domain';
import type { Projection } from './projection';

/** The token read-model document is the token record itself: data stays encrypted, only keyed hashes are searchable. */
export const tokensProjection: Projection<TokenRecord> = {
  collection: 'tokens',
  eventTypes: ['TokenCreated', 'TokenUpdated', 'TokenDeleted'],
  evolve(doc, event) {
    const state = evolveToken(doc ? { status: 'active', token: doc } : initialTokenState(), event as unknown as TokenEvent);
    return state.status === 'active' ? state.token : null;
  },
};
