// The handlers that show plaintext, on the embedded stores: each records its access in the tenant's audit stream before
// it answers, and answers nothing when the record cannot be written (a record without an answer is acceptable, a
// plaintext answer without a durable record is not).
import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmTokenCrypto, LiquidExpressionEngine, SqliteKeyStore, SqliteTokenSearchIndex, tokensTable, uuidGenerator } from '@vault/adapters';
import { auditStream, type AccessRecordedData, type AccessRule, type AccessTransform } from '@vault/domain';
import { tokensProjection } from '../projections/tokens.projection';
import { openEmbedded, type Embedded } from '@vault/test-support/embedded-stores';
import { DetokenizeHandler, DetokenizeQuery } from '../detokenize/detokenize';
import { Detokenizer } from '../detokenize/detokenizer';
import { CreateTokenCommand, CreateTokenHandler } from '../tokens/create-token';
import { GetTokenHandler, GetTokenQuery } from '../tokens/get-token';
import { SearchTokensHandler, SearchTokensQuery } from '../tokens/search-tokens';
import type { Caller } from '../shared/use-case';
import { failAuditAppends, interceptAppends, type InterceptedStore } from '@vault/test-support/intercepted-event-store';
import { AccessNotRecordedError, GroupCommitAccessLog } from './group-commit-access-log';

const ALL = ['token:create', 'token:read', 'token:search'];
const SSN = '123-45-6789';
const rules = (transform: AccessTransform): AccessRule[] => [{ priority: 1, container: '/', transform, permissions: ALL }];

describe('access records of the handlers that show plaintext', () => {
  let vault: Embedded;
  let keys: SqliteKeyStore;
  let index: SqliteTokenSearchIndex;
  let store: InterceptedStore;
  let get: GetTokenHandler;
  let search: SearchTokensHandler;
  let detokenize: DetokenizeHandler;
  let creator: CreateTokenHandler;
  let tenantId: string;

  beforeAll(async () => {
    vault = await openEmbedded({ name: 'access-records', collections: [tokensTable], projections: [tokensProjection] });
    keys = SqliteKeyStore.open(vault.dir);
    const crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
    const engine = new LiquidExpressionEngine();
    index = new SqliteTokenSearchIndex(vault.model);
    store = interceptAppends(vault.events);
    const access = new GroupCommitAccessLog(store);
    get = new GetTokenHandler(index, crypto, access);
    search = new SearchTokensHandler(index, crypto, access);
    detokenize = new DetokenizeHandler(new Detokenizer(index, crypto, engine), access);
    creator = new CreateTokenHandler(vault.runner(), index, crypto, engine, uuidGenerator, access);
  });
  beforeEach(() => {
    tenantId = randomUUID();
    store.failWith = null;
  });
  afterAll(async () => {
    await index.close();
    keys.close();
    await vault.close();
  });

  const caller = (transform: AccessTransform, applicationId = randomUUID()): Caller => ({
    principal: { applicationId, tenantId, type: 'private', permissions: new Set(ALL), accessRules: rules(transform) },
    now: new Date('2026-11-22T10:00:00.000Z'),
    requestId: `req-${randomUUID()}`,
  });
  const create = async (data = SSN) =>
    (await creator.execute(new CreateTokenCommand(caller('reveal'), { type: 'social_security_number', data }))).token.id;
  const audit = async () => (await vault.events.readStream(auditStream(tenantId))).map((e) => e.data as AccessRecordedData);

  it('GET with reveal records one reveal of the token by the caller; mask and redact record nothing', async () => {
    const id = await create();
    const reader = caller('reveal');
    expect((await get.execute(new GetTokenQuery(reader, id))).data).toBe(SSN);
    await get.execute(new GetTokenQuery(caller('mask'), id));
    await get.execute(new GetTokenQuery(caller('redact'), id));
    const stream = await vault.events.readStream(auditStream(tenantId));
    expect(stream.map((e) => [e.data, e.metadata.actor])).toEqual([
      [
        { tenant_id: tenantId, entity_type: 'token', entity_id: id, operation: 'reveal', via: 'get', created_at: '2026-11-22T10:00:00.000Z' },
        { type: 'application', id: reader.principal.applicationId },
      ],
    ]);
  });

  it('a search records the number of tokens it revealed, not the query; a masked search records nothing', async () => {
    await create('111-22-3333');
    await create('222-33-4444');
    const page = await search.execute(new SearchTokensQuery(caller('reveal'), { query: 'data:111-22-3333 OR type:social_security_number', page: 1, size: 10 }));
    expect(page.items).toHaveLength(2);
    await search.execute(new SearchTokensQuery(caller('mask'), { query: null, page: 1, size: 10 }));
    expect(await audit()).toEqual([
      { tenant_id: tenantId, entity_type: 'token', entity_id: null, operation: 'search', via: 'search', count: 2, created_at: '2026-11-22T10:00:00.000Z' },
    ]);
    const stored = (await vault.events.readStream(auditStream(tenantId))).map(({ data, metadata }) => ({ data, metadata }));
    expect(JSON.stringify(stored)).not.toMatch(/111-22-3333|data:/);
  });

  it('detokenize records one reveal per distinct token shown in plaintext', async () => {
    const [a, b] = [await create('111-22-3333'), await create('222-33-4444')];
    await detokenize.execute(new DetokenizeQuery(caller('reveal'), { x: `{{ ${a} }}`, y: `{{ ${a} | reveal_last: 4 }}`, z: `{{ ${b} }}` }));
    await detokenize.execute(new DetokenizeQuery(caller('mask'), { x: `{{ ${a} }}` }));
    expect((await audit()).map((r) => [r.operation, r.via, r.entity_id])).toEqual([
      ['reveal', 'detokenize', a],
      ['reveal', 'detokenize', b],
    ]);
  });

  describe('when the audit stream cannot be written', () => {
    beforeEach(() => {
      store.failWith = failAuditAppends;
    });

    it('a reveal GET answers a 503 instead of the data', async () => {
      const id = await create();
      const answer = get.execute(new GetTokenQuery(caller('reveal'), id));
      await expect(answer).rejects.toBeInstanceOf(AccessNotRecordedError);
      await expect(answer).rejects.toMatchObject({ kind: 'unavailable', retryAfterSeconds: 1 });
      expect(await audit()).toEqual([]);
    });

    it('a revealing search and detokenize fail too; a masked read, which records nothing, still answers', async () => {
      const id = await create();
      await expect(search.execute(new SearchTokensQuery(caller('reveal'), { query: null, page: 1, size: 10 }))).rejects.toBeInstanceOf(AccessNotRecordedError);
      await expect(detokenize.execute(new DetokenizeQuery(caller('reveal'), [`{{ ${id} }}`]))).rejects.toBeInstanceOf(AccessNotRecordedError);
      expect((await get.execute(new GetTokenQuery(caller('mask'), id))).data).toBe('XXX-XX-6789');
    });
  });
});
