// A create answers with the token as a read shows it, built from the plaintext it has just sealed: its own envelopes
// are not opened again (a key-store read, two unwraps and a decrypt per create). On the embedded stores, real crypto.
import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmTokenCrypto, LiquidExpressionEngine, SqliteKeyStore, SqliteTokenSearchIndex, tokensTable, uuidGenerator } from '@vault/adapters';
import type { AccessRule, AccessTransform, EncryptedData, SealPurpose, TokenType } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import { GroupCommitAccessLog } from '../audit/group-commit-access-log';
import { tokensProjection } from '../projections/tokens.projection';
import { openEmbedded, type Embedded } from '@vault/test-support/embedded-stores';
import { CreateTokenCommand, CreateTokenHandler } from './create-token';
import { GetTokenHandler, GetTokenQuery } from './get-token';
import type { Caller } from '../shared/use-case';

/** The real crypto, counting the envelopes it opens. */
class CountingCrypto implements TokenCrypto {
  opened = 0;
  constructor(private readonly inner: TokenCrypto) {}
  encrypt(tenantId: string, tokenId: string, plaintext: string, purpose?: SealPurpose): Promise<EncryptedData> {
    return this.inner.encrypt(tenantId, tokenId, plaintext, purpose);
  }
  decrypt(tenantId: string, tokenId: string, encrypted: EncryptedData, purpose?: SealPurpose): Promise<string> {
    this.opened++;
    return this.inner.decrypt(tenantId, tokenId, encrypted, purpose);
  }
  decryptMany(...args: Parameters<TokenCrypto['decryptMany']>): ReturnType<TokenCrypto['decryptMany']> {
    this.opened += args[1].length;
    return this.inner.decryptMany(...args);
  }
  fingerprint(tenantId: string, type: TokenType, evaluated: string): string {
    return this.inner.fingerprint(tenantId, type, evaluated);
  }
  searchHash(tenantId: string, normalizedValue: string): string {
    return this.inner.searchHash(tenantId, normalizedValue);
  }
}

describe('the token a create answers', () => {
  let vault: Embedded;
  let keys: SqliteKeyStore;
  let index: SqliteTokenSearchIndex;
  let crypto: CountingCrypto;
  let create: CreateTokenHandler;
  let get: GetTokenHandler;

  beforeAll(async () => {
    vault = await openEmbedded({ name: 'token-view', collections: [tokensTable], projections: [tokensProjection] });
    keys = SqliteKeyStore.open(vault.dir);
    crypto = new CountingCrypto(new AesGcmTokenCrypto(randomBytes(32), keys));
    index = new SqliteTokenSearchIndex(vault.model);
    const engine = new LiquidExpressionEngine();
    create = new CreateTokenHandler(vault.runner(), index, crypto, engine, uuidGenerator, new GroupCommitAccessLog(vault.events));
    get = new GetTokenHandler(index, crypto, new GroupCommitAccessLog(vault.events));
  });
  afterAll(async () => {
    await index.close();
    keys.close();
    await vault.close();
  });

  const caller = (tenantId: string, transform: AccessTransform): Caller => {
    const rules: AccessRule[] = [{ priority: 1, container: '/', transform, permissions: ['token:create', 'token:read'] }];
    return {
      principal: { applicationId: randomUUID(), tenantId, type: 'private', permissions: new Set(['token:create', 'token:read']), accessRules: rules },
      now: new Date(),
      requestId: `req-${randomUUID()}`,
    };
  };

  it.each<[string, AccessTransform, unknown, unknown]>([
    ['reveal: the data sent', 'reveal', { type: 'social_security_number', data: '123-45-6789' }, '123-45-6789'],
    ['reveal: JSON data', 'reveal', { type: 'token', data: { email: 'a@example.com', n: [1, 2] } }, { email: 'a@example.com', n: [1, 2] }],
    ['mask: the sealed mask', 'mask', { type: 'card_number', data: '4242424242424242' }, 'XXXXXXXXXXXX4242'],
    ['mask with no mask: no data', 'mask', { type: 'token', data: { a: 1 } }, undefined],
    ['redact: no data', 'redact', { type: 'social_security_number', data: '123-45-6789' }, undefined],
  ])('%s, as a read shows it, without opening its envelopes', async (_, transform, body, data) => {
    const tenantId = randomUUID();
    const before = crypto.opened;
    const { token, created } = await create.execute(new CreateTokenCommand(caller(tenantId, transform), body));
    expect(created).toBe(true);
    expect(crypto.opened).toBe(before);
    expect(token.data).toEqual(data);
    // The read opens the stored envelopes and must show exactly the same token.
    expect(await get.execute(new GetTokenQuery(caller(tenantId, transform), token.id))).toEqual(token);
  });
});
