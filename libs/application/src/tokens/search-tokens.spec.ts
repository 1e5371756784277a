// SearchTokensHandler on the embedded stores, with real tokens created through CreateTokenHandler: the caller's
// access rules become a container scope ANDed into the query the index runs; `data:` values reach the index as keyed
// hashes only; a token whose key was shredded under the search is left out instead of failing it.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  AesGcmTokenCrypto,
  LiquidExpressionEngine,
  SqliteKeyStore,
  SqliteTokenSearchIndex,
  tokensTable,
  uuidGenerator,
} from '@vault/adapters';
import type { AccessRule, AccessTransform, QueryNode } from '@vault/domain';
import type { TokenSearchRequest } from '../ports/token-search-index';
import type { Page } from '../ports/read-models';
import { tokensProjection } from '../projections/tokens.projection';
import { openEmbedded, type Embedded } from '@vault/test-support/embedded-stores';
import type { TokenView } from './token-view';
import { CreateTokenCommand, CreateTokenHandler } from './create-token';
import { SearchTokensHandler, SearchTokensQuery } from './search-tokens';
import type { Caller } from '../shared/use-case';
import { GroupCommitAccessLog } from '../audit/group-commit-access-log';

/** The real embedded index, remembering what it was asked. */
class RecordingSearchIndex extends SqliteTokenSearchIndex {
  readonly requests: TokenSearchRequest[] = [];
  override search(request: TokenSearchRequest) {
    this.requests.push(request);
    return super.search(request);
  }
}

const rule = (priority: number, container: string, transform: AccessTransform, ...permissions: string[]): AccessRule => ({
  priority,
  container,
  transform,
  permissions,
});
const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];

/** The embedded stores, the token handlers over them, and a tenant with an application allowed everything. */
async function openTokenVault(name: string) {
  const vault: Embedded = await openEmbedded({ name, collections: [tokensTable], projections: [tokensProjection] });
  const keys = SqliteKeyStore.open(vault.dir);
  const crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
  const index = new RecordingSearchIndex(vault.model);
  const tenantId = randomUUID();
  const caller = (accessRules: AccessRule[]): Caller => ({
    principal: { applicationId: randomUUID(), tenantId, type: 'private', permissions: new Set(ALL), accessRules },
    now: new Date(),
    requestId: `req-${randomUUID()}`,
  });
  const creator = new CreateTokenHandler(vault.runner(), index, crypto, new LiquidExpressionEngine(), uuidGenerator, new GroupCommitAccessLog(vault.events));
  const searcher = new SearchTokensHandler(index, crypto, new GroupCommitAccessLog(vault.events));
  return {
    tenantId,
    keys,
    crypto,
    index,
    create: async (body: object) => (await creator.execute(new CreateTokenCommand(caller([rule(1, '/', 'reveal', ...ALL)]), body))).token.id,
    search: (rules: AccessRule[], query: string | null = null): Promise<Page<TokenView>> =>
      searcher.execute(new SearchTokensQuery(caller(rules), { query, page: 1, size: 100 })),
    close: async () => {
      await index.close();
      keys.close();
      await vault.close();
    },
  };
}

const idsOf = (page: Page<TokenView>) => page.items.map((token) => token.id).sort();

describe('SearchTokensHandler', () => {
  let vault: Awaited<ReturnType<typeof openTokenVault>>;
  /** One token of each kind, by name: where it lives decides who finds it. */
  const t: Record<'ssn' | 'ssnLow' | 'card' | 'shared' | 'note', string> = { ssn: '', ssnLow: '', card: '', shared: '', note: '' };
  const ids = (...names: Array<keyof typeof t>) => names.map((n) => t[n]).sort();

  beforeAll(async () => {
    vault = await openTokenVault('search');
    t.ssn = await vault.create({ type: 'social_security_number', data: '123-45-6789' }); // /pii/high/
    t.ssnLow = await vault.create({ type: 'social_security_number', data: '987-65-4321', containers: ['/pii/low/'] });
    t.card = await vault.create({ type: 'card_number', data: '4242424242424242' }); // /pci/high/
    t.shared = await vault.create({ type: 'card_number', data: '5555555555554444', containers: ['/pci/high/', '/pii/high/'] });
    t.note = await vault.create({ type: 'token', data: 'Hello World', search_indexes: ['{{ data }}'] }); // /general/high/
  });
  afterAll(() => vault.close());

  describe('the access rules are a container scope ANDed into the query', () => {
    it.each<[string, AccessRule[], string | null, Array<keyof typeof t>]>([
      ['one mask rule on / (an application without rules): every token', [rule(1, '/', 'mask', 'token:search')], null, ['ssn', 'ssnLow', 'card', 'shared', 'note']],
      ['a rule on /pii/ covers the containers below it', [rule(1, '/pii/', 'reveal', 'token:search')], null, ['ssn', 'ssnLow', 'shared']],
      [
        'two rules: tokens under either',
        [rule(1, '/pii/high/', 'reveal', 'token:search'), rule(2, '/pci/', 'mask', 'token:search')],
        null,
        ['ssn', 'card', 'shared'],
      ],
      ['an OR in the query cannot escape the scope', [rule(1, '/pci/', 'mask', 'token:search')], 'type:social_security_number OR type:card_number', ['card', 'shared']],
      ['a container in the query narrows the scope, it does not replace it', [rule(1, '/pci/', 'mask', 'token:search')], 'container:"/pii/*"', ['shared']],
      ['a NOT in the query stays inside the scope', [rule(1, '/pii/', 'mask', 'token:search')], 'NOT type:social_security_number', ['shared']],
      [
        'a covering rule without token:search grants no search; a later one that has it does',
        [rule(1, '/pii/', 'reveal', 'token:read'), rule(2, '/pci/', 'mask', 'token:search')],
        null,
        ['card', 'shared'],
      ],
      ['a rule on a container holding no token: none', [rule(1, '/hr/', 'reveal', 'token:search')], null, []],
    ])('%s', async (_, rules, query, expected) => {
      const page = await vault.search(rules, query);
      expect(idsOf(page)).toEqual(ids(...expected));
      expect(page.total).toBe(expected.length);
    });

    it.each<[string, AccessRule[]]>([
      ['no rules at all (an application without token permissions)', []],
      ['rules granting every token permission but token:search', [rule(1, '/', 'reveal', 'token:read', 'token:create', 'token:update', 'token:delete')]],
    ])('%s: total 0, and the index is not asked', async (_, rules) => {
      const asked = vault.index.requests.length;
      expect(await vault.search(rules, 'type:card_number')).toEqual({ total: 0, items: [] });
      expect(vault.index.requests.length).toBe(asked);
    });

    it('each token found is shown under the first rule granting token:search on its containers', async () => {
      const page = await vault.search([rule(1, '/pii/', 'reveal', 'token:search'), rule(2, '/', 'mask', 'token:search'), rule(3, '/general/', 'reveal', 'token:search')]);
      const shown = Object.fromEntries(page.items.map((token) => [token.id, token.data]));
      expect(shown).toEqual({
        [t.ssn]: '123-45-6789',
        [t.ssnLow]: '987-65-4321',
        [t.card]: 'XXXXXXXXXXXX4242',
        [t.shared]: '5555555555554444',
        // Masked, and a `token` token has no mask: no data at all, although rule 3 would reveal it.
        [t.note]: undefined,
      });
    });
  });

  it('refuses a query that does not parse: 400, and the index is not asked', async () => {
    const asked = vault.index.requests.length;
    await expect(vault.search([rule(1, '/', 'reveal', 'token:search')], '(type:token')).rejects.toMatchObject({ kind: 'validation' });
    expect(vault.index.requests.length).toBe(asked);
  });

  describe('data: values are hashed as the read model holds them', () => {
    const dataValues = (node: QueryNode | null): string[] => {
      if (node === null) return [];
      switch (node.kind) {
        case 'and':
        case 'or':
          return node.children.flatMap(dataValues);
        case 'not':
          return dataValues(node.child);
        case 'data':
          return [node.value];
        default:
          return [];
      }
    };

    it.each<[string, Array<keyof typeof t>]>([
      ['data:"123-45-6789"', ['ssn']],
      ['data:123456789', ['ssn']],
      ['data:4321', ['ssnLow']],
      ['data:"  HELLO world "', ['note']],
      ['data:6789 OR data:4321', ['ssn', 'ssnLow']],
      ['data:4242', []], // card numbers are not searchable by data
      ['data:"hello" AND type:token', []], // whole values only
    ])('%s', async (query, expected) => {
      const page = await vault.search([rule(1, '/', 'reveal', 'token:search')], query);
      expect(idsOf(page)).toEqual(ids(...expected));
      const asked = vault.index.requests[vault.index.requests.length - 1];
      const hashes = dataValues(asked.query);
      expect(hashes.length).toBeGreaterThan(0);
      for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    });
  });
});

describe('SearchTokensHandler with a token shredded under the search', () => {
  let vault: Awaited<ReturnType<typeof openTokenVault>>;
  beforeEach(async () => {
    vault = await openTokenVault('search-shredded');
  });
  afterEach(() => vault.close());

  it.each<[AccessTransform]>([['reveal'], ['mask']])(
    'with a %s rule, a token whose key is gone while the read model still lists it is left out, not an error',
    async (transform) => {
      const kept = await vault.create({ type: 'social_security_number', data: '111-22-3333' });
      const shredded = await vault.create({ type: 'social_security_number', data: '444-55-6666' });
      // A delete in flight: the key shredder has destroyed the key, the token projector has not applied the delete.
      await vault.keys.destroy(vault.tenantId, shredded);

      const page = await vault.search([rule(1, '/', transform, 'token:search')], 'type:social_security_number');
      expect(page.items.map((token) => token.id)).toEqual([kept]);
    },
  );
});
