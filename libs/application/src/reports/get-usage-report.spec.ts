// GetUsageReportHandler on the embedded stores, fed by the real token use cases and the projector: live tokens by type,
// the month's distinct active tokens, the caller's tenant only, and counts only.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  AesGcmTokenCrypto,
  LiquidExpressionEngine,
  SqliteKeyStore,
  SqliteTokenSearchIndex,
  SqliteUsageReportReadModel,
  tokensTable,
  usageActiveTable,
  usageTokensTable,
  uuidGenerator,
} from '@vault/adapters';
import { openEmbedded, type Embedded } from '@vault/test-support/embedded-stores';
import { GroupCommitAccessLog } from '../audit/group-commit-access-log';
import { tokensProjection } from '../projections/tokens.projection';
import { usageActiveProjection, usageTokensProjection } from '../projections/usage.projection';
import { aCaller } from '../shared/use-case.builders';
import { CreateTokenCommand, CreateTokenHandler } from '../tokens/create-token';
import { DeleteTokenCommand, DeleteTokenHandler } from '../tokens/delete-token';
import { GetTokenHandler, GetTokenQuery } from '../tokens/get-token';
import { REVEAL_ALL, TOKEN_PERMISSIONS } from '../tokens/token-vault.builders';
import { GetUsageReportHandler, GetUsageReportQuery } from './get-usage-report';

describe('GetUsageReportHandler', () => {
  let vault: Embedded;
  let keys: SqliteKeyStore;
  let index: SqliteTokenSearchIndex;
  let access: GroupCommitAccessLog;
  let create: CreateTokenHandler;
  let get: GetTokenHandler;
  let remove: DeleteTokenHandler;
  let handler: GetUsageReportHandler;

  beforeAll(async () => {
    vault = await openEmbedded({
      name: 'usage-report',
      collections: [tokensTable, usageTokensTable, usageActiveTable],
      projections: [tokensProjection, usageTokensProjection, usageActiveProjection],
    });
    keys = SqliteKeyStore.open(vault.dir);
    const crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
    index = new SqliteTokenSearchIndex(vault.model);
    access = new GroupCommitAccessLog(vault.events);
    create = new CreateTokenHandler(vault.runner(), index, crypto, new LiquidExpressionEngine(), uuidGenerator, access);
    get = new GetTokenHandler(index, crypto, access);
    // No key shredder runs here: the delete waits on the projector instead.
    remove = new DeleteTokenHandler(vault.runner(), { waiter: vault.projector, timeoutMs: 1000 });
    handler = new GetUsageReportHandler(new SqliteUsageReportReadModel(vault.model));
  });
  afterAll(async () => {
    await index.close();
    keys.close();
    await vault.close();
  });

  const tokenCaller = (tenantId: string, now?: Date) => aCaller({ tenantId, rules: REVEAL_ALL, permissions: TOKEN_PERMISSIONS, now });
  const reporter = (tenantId: string, now?: Date) => aCaller({ tenantId, type: 'management', permissions: ['report:read'], now });
  const given = async (tenantId: string, body: object, now?: Date) => (await create.execute(new CreateTokenCommand(tokenCaller(tenantId, now), body))).token;
  /** Access records are durable before a read answers, and projected a moment later. */
  const projected = async () => expect(await vault.projector.waitFor((await vault.events.headPosition())!, 2000)).toBe(true);

  it('answers a tenant with nothing with no types and no active tokens', async () => {
    expect(await handler.execute(new GetUsageReportQuery(reporter(randomUUID())))).toEqual({ token_report: { metrics_by_type: {}, monthly_active_tokens: 0 } });
  });

  it("counts the caller's live tokens by type and the month's distinct active tokens, counts only", async () => {
    const tenant = randomUUID();
    const card = await given(tenant, { type: 'card_number', data: '4242424242424242' });
    const ssn = await given(tenant, { type: 'social_security_number', data: '123-45-6789' });
    const doomed = await given(tenant, { type: 'token', data: { secret: 'plaintext-marker' } });
    await given(randomUUID(), { type: 'token', data: 'another tenant' });
    await get.execute(new GetTokenQuery(tokenCaller(tenant), card.id));
    await get.execute(new GetTokenQuery(tokenCaller(tenant), card.id));
    await remove.execute(new DeleteTokenCommand(tokenCaller(tenant), doomed.id));
    await projected();
    const report = await handler.execute(new GetUsageReportQuery(reporter(tenant)));
    expect(report).toEqual({
      token_report: {
        metrics_by_type: {
          card_number: { count: 1, last_created_at: card.created_at },
          social_security_number: { count: 1, last_created_at: ssn.created_at },
        },
        monthly_active_tokens: 3,
      },
    });
    expect(JSON.stringify(report)).not.toMatch(new RegExp([card.id, ssn.id, doomed.id, '4242', '6789', 'plaintext-marker'].join('|')));
  });

  it("counts the request's calendar month (UTC) only", async () => {
    const tenant = randomUUID();
    await given(tenant, { type: 'token', data: 'in March' }, new Date('2031-03-31T23:59:59.000Z'));
    const inMarch = await handler.execute(new GetUsageReportQuery(reporter(tenant, new Date('2031-03-15T00:00:00.000Z'))));
    const inApril = await handler.execute(new GetUsageReportQuery(reporter(tenant, new Date('2031-04-01T00:00:00.000Z'))));
    expect([inMarch.token_report.monthly_active_tokens, inApril.token_report.monthly_active_tokens]).toEqual([1, 0]);
    expect(inApril.token_report.metrics_by_type).toEqual({ token: { count: 1, last_created_at: '2031-03-31T23:59:59.000Z' } });
  });
});
