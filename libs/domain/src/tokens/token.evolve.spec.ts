import { APP, aTokenContent, CREATED_AT, LATER, TENANT, TOKEN_ID, tokenCreated } from './token.builders';
import type { TokenEvent } from './token.events';
import { evolveToken } from './token.evolve';
import { initialTokenState, isExpired, visibleToken, type TokenState } from './token.state';

const replay = (events: TokenEvent[]): TokenState => events.reduce(evolveToken, initialTokenState());

const updated: TokenEvent = {
  type: 'TokenUpdated',
  data: { id: TOKEN_ID, tenant_id: TENANT, ...aTokenContent({ containers: ['/moved/'] }), modified_by: 'other-app', modified_at: LATER.toISOString() },
};
const deleted: TokenEvent = {
  type: 'TokenDeleted',
  data: { id: TOKEN_ID, tenant_id: TENANT, reason: 'requested', deleted_by: APP, deleted_at: LATER.toISOString() },
};

describe('evolveToken', () => {
  it('makes a created token active, not yet modified', () => {
    expect(replay([tokenCreated()])).toEqual({
      status: 'active',
      token: { ...tokenCreated().data, modified_by: null, modified_at: null },
    });
  });

  it('replaces the content on update and keeps who created it', () => {
    const state = replay([tokenCreated(), updated]);
    expect(state).toMatchObject({
      status: 'active',
      token: { containers: ['/moved/'], created_by: APP, created_at: CREATED_AT.toISOString(), modified_by: 'other-app' },
    });
  });

  it('remembers a deleted id, so it stays taken', () => {
    expect(replay([tokenCreated(), deleted])).toEqual({ status: 'deleted', id: TOKEN_ID, tenant_id: TENANT });
  });

  it('ignores an update with nothing to apply to', () => {
    expect(replay([updated])).toEqual({ status: 'absent' });
  });
});

describe('visibleToken', () => {
  const active = replay([tokenCreated({ expires_at: LATER.toISOString() })]);

  it('shows an unexpired token to its own tenant only', () => {
    const before = new Date(LATER.getTime() - 1);
    expect(visibleToken(active, TENANT, before)?.id).toBe(TOKEN_ID);
    expect(visibleToken(active, 'another-tenant', before)).toBeNull();
  });

  it('hides a token from the instant it expires', () => {
    expect(isExpired({ expires_at: LATER.toISOString() }, LATER)).toBe(true);
    expect(visibleToken(active, TENANT, LATER)).toBeNull();
  });
});
