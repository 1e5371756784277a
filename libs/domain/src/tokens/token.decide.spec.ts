import { givenWhenThenFor } from '@vault/test-support/given-when-then';
import {
  anApp,
  APP,
  aTokenContent,
  CREATED_AT,
  LATER,
  OTHER_TENANT,
  TENANT,
  TOKEN_ID,
  tokenCreated,
} from './token.builders';
import { tokenDecider, type TokenCommand } from './token.decide';
import type { TokenContent, TokenEvent } from './token.events';

const { given } = givenWhenThenFor(tokenDecider, anApp());

const content = aTokenContent();
const { type: _type, ...updatedContent } = aTokenContent({ metadata: { source: 'import' }, masked: { ...aTokenContent().masked!, ciphertext: 'bmV3IG1hc2s=' } });

const create = (c: TokenContent = content, id = TOKEN_ID): TokenCommand => ({ type: 'CreateToken', data: { id, content: c } });
const update = (c = updatedContent, id = TOKEN_ID): TokenCommand => ({ type: 'UpdateToken', data: { id, content: c } });
const remove = (reason?: 'requested' | 'expired'): TokenCommand => ({ type: 'DeleteToken', data: { id: TOKEN_ID, reason } });

const created = tokenCreated();
const othersToken = tokenCreated({}, { tenantId: OTHER_TENANT });
const expiresSoon = tokenCreated({ expires_at: '2024-05-02T00:00:00.000Z' }); // before LATER
const deleted: TokenEvent = {
  type: 'TokenDeleted',
  data: { id: TOKEN_ID, tenant_id: TENANT, reason: 'requested', deleted_by: APP, deleted_at: CREATED_AT.toISOString() },
};

describe('CreateToken', () => {
  it('records the token for the caller\'s tenant, stamped with the caller and the clock', () => {
    given([])
      .when(create())
      .then([
        {
          type: 'TokenCreated',
          data: { id: TOKEN_ID, tenant_id: TENANT, ...content, created_by: APP, created_at: LATER.toISOString() },
        },
      ]);
  });

  it('carries only the encrypted envelope, never plaintext data', () => {
    const [event] = tokenDecider.decide(create(), tokenDecider.initialState(), anApp());
    expect(Object.keys(event.data)).not.toContain('data');
    expect(event.data).toMatchObject({ encrypted: content.encrypted });
  });

  it.each([
    ['the id is taken', [created]],
    ['the id belonged to a deleted token', [created, deleted]],
    ['the id is taken in another tenant', [othersToken]],
    ['the id belongs to an expired token', [expiresSoon]],
  ])('is a conflict when %s', (_, history) => {
    given(history).when(create()).then({ error: 'conflict', message: 'A token with this id already exists.' });
  });

  it('rejects an expiry that is not in the future', () => {
    given([])
      .when(create(aTokenContent({ expires_at: LATER.toISOString() })))
      .then({ error: 'validation', errors: { expires_at: ['expires_at must be in the future.'] } });
  });

  it('needs a tenant', () => {
    given([]).when(create(), anApp({ tenantId: null })).then({ error: 'forbidden' });
  });
});

describe('UpdateToken', () => {
  it('records the whole token after the patch, keeping its type and tenant', () => {
    given([created])
      .when(update())
      .then([
        {
          type: 'TokenUpdated',
          data: {
            id: TOKEN_ID,
            tenant_id: TENANT,
            type: 'social_security_number',
            ...updatedContent,
            modified_by: APP,
            modified_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it.each([
    ['never existed', []],
    ['was deleted', [created, deleted]],
    ['belongs to another tenant', [othersToken]],
    ['has expired', [expiresSoon]],
  ])('is not found when the token %s', (_, history) => {
    given(history).when(update()).then({ error: 'not_found' });
  });

  it('rejects an expiry that is not in the future', () => {
    given([created])
      .when(update({ ...updatedContent, expires_at: '2024-01-01T00:00:00.000Z' }))
      .then({ error: 'validation', errors: { expires_at: ['expires_at must be in the future.'] } });
  });
});

describe('DeleteToken', () => {
  it('records who deleted the token and when', () => {
    given([created])
      .when(remove())
      .then([
        {
          type: 'TokenDeleted',
          data: { id: TOKEN_ID, tenant_id: TENANT, reason: 'requested', deleted_by: APP, deleted_at: LATER.toISOString() },
        },
      ]);
  });

  it.each([
    ['never existed', []],
    ['was deleted already', [created, deleted]],
    ['belongs to another tenant', [othersToken]],
    ['has expired (the sweep deletes it)', [expiresSoon]],
  ])('is not found when the token %s', (_, history) => {
    given(history).when(remove()).then({ error: 'not_found' });
  });

  it('lets the expiry sweep delete an expired token', () => {
    const sweep = anApp({ actor: { type: 'system', id: 'expiry-sweep' } });
    given([expiresSoon])
      .when(remove('expired'), sweep)
      .then([
        {
          type: 'TokenDeleted',
          data: { id: TOKEN_ID, tenant_id: TENANT, reason: 'expired', deleted_by: 'expiry-sweep', deleted_at: LATER.toISOString() },
        },
      ]);
  });

  it('does not let the sweep delete a token that has not expired', () => {
    given([created]).when(remove('expired')).then({ error: 'conflict', message: 'has not expired' });
  });

  it('does not let the sweep delete another tenant\'s or a deleted token', () => {
    given([tokenCreated({ expires_at: CREATED_AT.toISOString() }, { tenantId: OTHER_TENANT })])
      .when(remove('expired'))
      .then({ error: 'not_found' });
    given([created, deleted]).when(remove('expired')).then({ error: 'not_found' });
  });
});
