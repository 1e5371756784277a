// The token specs' vault: the embedded log and token read model, real AES-GCM crypto over a key store in the same data
// dir, the Liquid engine and an access log appending to the log; tokens are given by creating them as POST /tokens does.
import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmTokenCrypto, LiquidExpressionEngine, SqliteKeyStore, SqliteTokenSearchIndex, tokensTable, uuidGenerator } from '@vault/adapters';
import type { AccessRule } from '@vault/domain';
import { openEmbedded } from '@vault/test-support/embedded-stores';
import { GroupCommitAccessLog } from '../audit/group-commit-access-log';
import { tokensProjection } from '../projections/tokens.projection';
import { aCaller, rule } from '../shared/use-case.builders';
import type { Caller } from '../shared/use-case';
import { CreateTokenCommand, CreateTokenHandler } from './create-token';
import type { TokenView } from './token-view';

export const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
/** Every token permission, revealing: what the given tokens are created with. */
export const REVEAL_ALL: AccessRule[] = [rule(1, '/', 'reveal', ...TOKEN_PERMISSIONS)];

export type TokenVault = Awaited<ReturnType<typeof openTokenVault>>;

export async function openTokenVault(name: string) {
  const vault = await openEmbedded({ name, collections: [tokensTable], projections: [tokensProjection] });
  const keys = SqliteKeyStore.open(vault.dir);
  const crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
  const engine = new LiquidExpressionEngine();
  const index = new SqliteTokenSearchIndex(vault.model);
  const access = new GroupCommitAccessLog(vault.events);
  const creator = new CreateTokenHandler(vault.runner(), index, crypto, engine, uuidGenerator, access);
  let tenantId: string = randomUUID();
  return {
    vault,
    events: vault.events,
    keys,
    crypto,
    engine,
    index,
    access,
    get tenantId() {
      return tenantId;
    },
    /** A fresh tenant for the next case: nothing of an earlier one is seen. */
    newTenant(): string {
      tenantId = randomUUID();
      return tenantId;
    },
    /** An application of the current tenant holding every token permission, shown tokens as `rules` say. */
    caller: (rules: AccessRule[] = REVEAL_ALL, tenant: string = tenantId): Caller => aCaller({ tenantId: tenant, rules, permissions: TOKEN_PERMISSIONS }),
    /** Given: a token created as POST /tokens does, by a caller every rule reveals to. */
    given: async (body: object): Promise<TokenView> => (await creator.execute(new CreateTokenCommand(aCaller({ tenantId, rules: REVEAL_ALL }), body))).token,
    close: async () => {
      await index.close();
      keys.close();
      await vault.close();
    },
  };
}
