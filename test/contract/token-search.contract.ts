// The shared token-search corpus: fixtures, queries and the ids they must return, run against every search adapter.
// It also compares each adapter with the domain's reference evaluator on random fixtures and random queries.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { PURGE_TENANT, type ProjectionStore, type TokenDocument, type TokenSearchIndex } from '@vault/application';
import { evaluateQuery, parseQuery, QueryNode, SearchableToken, tokenKey, TOKEN_TYPES } from '@vault/domain';
import { queryNodeArbitrary, searchableTokenArbitrary } from '@vault/domain/search/query.arbitrary';
import { fieldExamples, matchingToken, otherToken } from '@vault/domain/search/query.field-examples';
import { aTokenRecord } from '@vault/domain/search/token-record.builders';

export interface TokenSearchUnderTest {
  projectionStore: ProjectionStore;
  tokens: TokenSearchIndex;
}

export function describeTokenSearchContract(
  name: string,
  open: () => Promise<{ index: TokenSearchUnderTest; dispose(): Promise<void> }>,
  options: { propertyRuns?: number } = {},
): void {
  describe(`${name} token search contract`, () => {
    let under: TokenSearchUnderTest;
    let dispose: () => Promise<void>;
    let position = 0n;
    const NOW = Date.UTC(2024, 5, 1);

    const put = async (docs: TokenDocument[]) => {
      position += 1n;
      await under.projectionStore.commit(
        docs.map((doc) => ({ collection: 'tokens', id: tokenKey(doc.tenant_id, doc.id), revision: 0n, doc: doc as unknown as Record<string, unknown> })),
        { commit: position, prepare: position },
      );
    };

    beforeAll(async () => {
      ({ index: under, dispose } = await open());
      position = ((await under.projectionStore.checkpoint())?.commit ?? 0n) + 1n;
    });
    afterAll(() => dispose());

    describe('corpus', () => {
      const tenant = `tenant-${randomUUID()}`;
      const other = `tenant-${randomUUID()}`;
      const app1 = randomUUID();
      const app2 = randomUUID();
      const t = (name: string, overrides: Partial<TokenDocument>) => ({ name, doc: aTokenRecord({ tenant_id: tenant, ...overrides }) });
      const fixtures = [
        t('ssn', {
          type: 'social_security_number',
          containers: ['/pii/high/'],
          search_hashes: ['123-45-6789', '123456789', '6789'],
          fingerprint: 'FpSsn',
          metadata: { customer: 'acme', region: 'eu' },
          created_by: app1,
          created_at: '2024-01-01T00:00:00.000Z',
        }),
        t('ssn2', {
          type: 'social_security_number',
          containers: ['/pii/high/'],
          search_hashes: ['987-65-6789', '987656789', '6789'],
          fingerprint: 'FpSsn2',
          metadata: { customer: 'globex' },
          created_by: app1,
          created_at: '2024-01-31T23:59:59.999Z',
        }),
        t('ein', {
          type: 'employer_id_number',
          containers: ['/pii/low/'],
          search_hashes: ['12-3456789', '123456789', '6789'],
          fingerprint: 'FpEin',
          created_by: app2,
          created_at: '2024-02-01T00:00:00.000Z',
          modified_by: app1,
          modified_at: '2024-03-01T12:00:00.000Z',
        }),
        t('card', {
          type: 'card_number',
          containers: ['/pci/high/'],
          search_hashes: ['6789'],
          fingerprint: 'fpcard',
          masked: { v: 1, alg: 'AES-256-GCM', key_ref: 'k', iv: 'aXY=', ciphertext: 'c2VhbGVkIG1hc2s=', tag: 'dGFn' },
          created_by: app2,
          created_at: '2024-02-15T08:30:00.000Z',
        }),
        t('json', {
          type: 'token',
          containers: ['/general/high/', '/pci/'],
          search_hashes: ['abc-1'],
          fingerprint: 'FPCARD',
          metadata: { 'a.b': 'say "hi"' },
          created_by: app2,
          created_at: '2024-03-10T00:00:00.000Z',
        }),
        t('expired', {
          type: 'token',
          containers: ['/general/high/'],
          search_hashes: ['6789'],
          expires_at: '2024-05-01T00:00:00.000Z',
          created_at: '2024-04-01T00:00:00.000Z',
        }),
        { name: 'other-tenant', doc: aTokenRecord({ tenant_id: other, type: 'token', search_hashes: ['6789'], containers: ['/pii/high/'], created_at: '2024-01-20T00:00:00.000Z' }) },
      ];
      const id = (name: string) => fixtures.find((f) => f.name === name)!.doc.id;
      const byName = (names: string[]) => names.map(id);

      beforeAll(() => put(fixtures.map((f) => f.doc)));

      const cases: Array<[string, string[]]> = [
        ['', ['json', 'card', 'ein', 'ssn2', 'ssn']],
        ['type:social_security_number', ['ssn2', 'ssn']],
        ['type:CARD_NUMBER', ['card']],
        ['data:6789', ['ein', 'ssn2', 'ssn']],
        ['data:123456789', ['ein', 'ssn']],
        ['data:"123-45-6789"', ['ssn']],
        ['data:ABC-1', ['json']],
        ['fingerprint:FpSsn', ['ssn']],
        ['fingerprint:fpcard', ['card']],
        ['fingerprint:FPCARD', ['json']],
        ['container:"/pii/high/"', ['ssn2', 'ssn']],
        ['container:"/pii/"', []],
        ['container:"/pii/*"', ['ein', 'ssn2', 'ssn']],
        ['container:"/PCI/*"', ['json', 'card']],
        ['container:"/pci/"', ['json']],
        ['container:/*', ['json', 'card', 'ein', 'ssn2', 'ssn']],
        ['metadata.customer:ACME', ['ssn']],
        ['metadata.Customer:acme', ['ssn']],
        ['metadata.a.b:"say \\"hi\\""', ['json']],
        ['metadata.customer:acm', []],
        [`created_by:${app1.toUpperCase()}`, ['ssn2', 'ssn']],
        [`modified_by:${app1}`, ['ein']],
        [`NOT modified_by:${app1}`, ['json', 'card', 'ssn2', 'ssn']],
        ['created_at:[2024-01-01 TO 2024-01-31]', ['ssn2', 'ssn']],
        ['created_at:{2024-01-01 TO 2024-01-31}', []],
        ['created_at:{2024-01-01 TO 2024-02-01]', ['ein', 'ssn2']],
        ['created_at:[2024-02-01 TO *]', ['json', 'card', 'ein']],
        ['created_at:[* TO 2024-01-31T23:59:59.999Z}', ['ssn']],
        ['created_at:2024-02-15', ['card']],
        ['created_at:"2024-02-15T08:30:00Z"', ['card']],
        ['modified_at:[2024-03-01 TO 2024-03-01]', ['ein']],
        ['modified_at:[* TO *]', ['ein']],
        ['type:social_security_number OR type:employer_id_number AND container:"/pii/low/"', ['ein', 'ssn2', 'ssn']],
        ['(type:social_security_number OR type:employer_id_number) AND metadata.customer:acme', ['ssn']],
        ['data:6789 NOT type:employer_id_number', ['ssn2', 'ssn']],
        ['data:6789 AND -container:"/pii/high/"', ['ein']],
        ['!type:token AND !type:card_number', ['ein', 'ssn2', 'ssn']],
        [`id:${'X'.repeat(0)}${randomUUID()}`, []],
      ];

      it.each(cases)('%j', async (query, expected) => {
        const result = await under.tokens.search({ tenantId: tenant, query: parseQuery(query), now: NOW, page: 1, size: 100 });
        expect(result.items.map((d) => d.id)).toEqual(byName(expected));
        expect(result.total).toBe(expected.length);
      });

      it('matches an id case-insensitively', async () => {
        const query = parseQuery(`id:${id('card').toUpperCase()}`);
        expect((await under.tokens.search({ tenantId: tenant, query, now: NOW, page: 1, size: 20 })).items.map((d) => d.id)).toEqual([id('card')]);
      });

      it('never crosses tenants, whatever the query', async () => {
        const result = await under.tokens.search({ tenantId: other, query: parseQuery('type:token OR type:social_security_number'), now: NOW, page: 1, size: 100 });
        expect(result.items.map((d) => d.id)).toEqual([id('other-tenant')]);
        expect(await under.tokens.get(other, id('ssn'), NOW)).toBeNull();
      });

      it('leaves out and does not count expired tokens', async () => {
        const before = await under.tokens.search({ tenantId: tenant, query: parseQuery('data:6789'), now: Date.UTC(2024, 3, 15), page: 1, size: 100 });
        expect(before.items.map((d) => d.id)).toEqual(byName(['expired', 'ein', 'ssn2', 'ssn']));
        expect(await under.tokens.get(tenant, id('expired'), NOW)).toBeNull();
        expect((await under.tokens.get(tenant, id('expired'), Date.UTC(2024, 3, 15)))?.id).toBe(id('expired'));
        expect(await under.tokens.expired(NOW, 100)).toEqual(expect.arrayContaining([{ id: id('expired'), tenant_id: tenant }]));
      });

      it('pages by created_at descending then id, with exact totals', async () => {
        const page2 = await under.tokens.search({ tenantId: tenant, query: null, now: NOW, page: 2, size: 2 });
        expect(page2.items.map((d) => d.id)).toEqual(byName(['ein', 'ssn2']));
        expect(page2.total).toBe(5);
        const past = await under.tokens.search({ tenantId: tenant, query: null, now: NOW, page: 4, size: 2 });
        expect(past).toEqual({ items: [], total: 5 });
      });

      it('gives every page of every size as the matching slice of the full ordering', async () => {
        const all = (await under.tokens.search({ tenantId: tenant, query: null, now: NOW, page: 1, size: 100 })).items.map((d) => d.id);
        for (let size = 1; size <= 6; size++) {
          for (let page = 1; page <= Math.ceil(all.length / size) + 1; page++) {
            const got = await under.tokens.search({ tenantId: tenant, query: null, now: NOW, page, size });
            expect(got.items.map((d) => d.id)).toEqual(all.slice((page - 1) * size, page * size));
          }
        }
      });

      it('gets a token with its whole document, and finds it by type and fingerprint (the deduplication lookup)', async () => {
        const doc = fixtures.find((f) => f.name === 'json')!.doc;
        expect(await under.tokens.get(tenant, doc.id, NOW)).toEqual(doc);
        const lookup = (tenantId: string, type: string, fingerprint: string) =>
          under.tokens.search({
            tenantId,
            query: { kind: 'and', children: [{ kind: 'term', field: 'fingerprint', value: fingerprint }, { kind: 'term', field: 'type', value: type }] },
            now: NOW,
            page: 1,
            size: 1,
          });
        expect((await lookup(tenant, 'token', 'FPCARD')).items.map((d) => d.id)).toEqual([doc.id]);
        expect((await lookup(tenant, 'token', 'fpcard')).items).toEqual([]);
        expect((await lookup(tenant, 'card_number', 'FPCARD')).items).toEqual([]);
        expect((await lookup(other, 'token', 'FPCARD')).items).toEqual([]);
      });

      it('forgets a deleted token', async () => {
        position += 1n;
        await under.projectionStore.commit([{ collection: 'tokens', id: tokenKey(tenant, id('card')), revision: 1n, doc: null }], { commit: position, prepare: position });
        expect(await under.tokens.get(tenant, id('card'), NOW)).toBeNull();
        expect((await under.tokens.search({ tenantId: tenant, query: parseQuery('type:card_number'), now: NOW, page: 1, size: 20 })).total).toBe(0);
      });

      it('keeps tokens of two tenants that share an id apart: each tenant reads, finds and loses only its own', async () => {
        const shared = randomUUID();
        const mine = aTokenRecord({ id: shared, tenant_id: tenant, metadata: { owner: 'mine' } });
        const theirs = aTokenRecord({ id: shared, tenant_id: other, metadata: { owner: 'theirs' } });
        await put([mine, theirs]);
        const loaded = await under.projectionStore.load('tokens', [tokenKey(tenant, shared), tokenKey(other, shared)]);
        expect([...loaded.keys()].sort()).toEqual([tokenKey(tenant, shared), tokenKey(other, shared)].sort());
        expect((await under.tokens.get(tenant, shared, NOW))?.metadata).toEqual({ owner: 'mine' });
        expect((await under.tokens.get(other, shared, NOW))?.metadata).toEqual({ owner: 'theirs' });
        const byId = await under.tokens.search({ tenantId: other, query: parseQuery(`id:${shared}`), now: NOW, page: 1, size: 20 });
        expect(byId.items.map((d) => d.metadata)).toEqual([{ owner: 'theirs' }]);
        position += 1n;
        await under.projectionStore.commit([{ collection: 'tokens', id: tokenKey(other, shared), revision: 1n, doc: null }], { commit: position, prepare: position });
        expect(await under.tokens.get(other, shared, NOW)).toBeNull();
        expect((await under.tokens.get(tenant, shared, NOW))?.metadata).toEqual({ owner: 'mine' });
      });
    });

    // One example per field of SEARCH_FIELDS: a field added to the table is indexed by every adapter before it ships.
    describe('every searchable field', () => {
      const tenant = `tenant-${randomUUID()}`;
      const [matching, other] = [matchingToken, otherToken].map((token) => aTokenRecord({ ...token, tenant_id: tenant }));
      const ids = async (query: string) =>
        (await under.tokens.search({ tenantId: tenant, query: parseQuery(query), now: NOW, page: 1, size: 10 })).items.map((d) => d.id);

      beforeAll(() => put([matching, other]));

      it.each(fieldExamples.map(({ field, query }) => [field, query]))('%s: %s finds the token it describes, and NOT it the other', async (_field, query) => {
        expect(await ids(query)).toEqual([matching.id]);
        expect(await ids(`NOT ${query}`)).toEqual([other.id]);
      });
    });

    it('drops every token of a deleted tenant on its purge, from reads, searches and counts, and no other tenant’s', async () => {
      const [gone, kept] = [randomUUID(), randomUUID()];
      const shared = randomUUID();
      const doomed = [aTokenRecord({ tenant_id: gone, id: shared }), aTokenRecord({ tenant_id: gone, type: 'card_number' })];
      const survivor = aTokenRecord({ tenant_id: kept, id: shared });
      await put([...doomed, survivor]);
      position += 1n;
      await under.projectionStore.commit([{ collection: PURGE_TENANT, id: gone, revision: 2n, doc: null }], { commit: position, prepare: position });
      for (const doc of doomed) expect(await under.tokens.get(gone, doc.id, NOW)).toBeNull();
      expect((await under.tokens.search({ tenantId: gone, query: null, now: NOW, page: 1, size: 20 })).total).toBe(0);
      expect((await under.projectionStore.load('tokens', doomed.map((doc) => tokenKey(gone, doc.id)))).size).toBe(0);
      expect(await under.tokens.get(kept, shared, NOW)).toEqual(survivor);
      expect((await under.tokens.search({ tenantId: kept, query: null, now: NOW, page: 1, size: 20 })).total).toBe(1);
    });

    it('counts the live tokens of every tenant by type (the metrics gauge): expired and deleted ones are left out', async () => {
      const [a, b] = [`tenant-${randomUUID()}`, `tenant-${randomUUID()}`];
      const delta = (after: Record<string, number>, before: Record<string, number>) =>
        Object.fromEntries(TOKEN_TYPES.map((type) => [type, (after[type] ?? 0) - (before[type] ?? 0)]));
      const later = NOW + 60_000;
      const [before, beforeLater] = [await under.tokens.countByType(NOW), await under.tokens.countByType(later)];
      const deleted = aTokenRecord({ tenant_id: a, type: 'social_security_number' });
      await put([
        aTokenRecord({ tenant_id: a, type: 'social_security_number' }),
        deleted,
        aTokenRecord({ tenant_id: a, type: 'card_number' }),
        aTokenRecord({ tenant_id: b, type: 'token' }),
        aTokenRecord({ tenant_id: b, type: 'token', expires_at: new Date(NOW).toISOString() }),
        aTokenRecord({ tenant_id: b, type: 'token', expires_at: new Date(later).toISOString() }),
      ]);
      position += 1n;
      await under.projectionStore.commit([{ collection: 'tokens', id: tokenKey(a, deleted.id), revision: 1n, doc: null }], { commit: position, prepare: position });
      expect(delta(await under.tokens.countByType(NOW), before)).toEqual({ token: 2, card_number: 1, social_security_number: 1, employer_id_number: 0 });
      // A minute later the third one has expired too.
      expect(delta(await under.tokens.countByType(later), beforeLater)).toEqual({ token: 1, card_number: 1, social_security_number: 1, employer_id_number: 0 });
      expect(Object.keys(await under.tokens.countByType(NOW)).every((type) => (TOKEN_TYPES as readonly string[]).includes(type))).toBe(true);
    });

    it('agrees with the reference evaluator on random tokens and random queries', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(searchableTokenArbitrary(), { minLength: 1, maxLength: 12 }), fc.array(queryNodeArbitrary({ maxDepth: 2, freeText: false }), { minLength: 1, maxLength: 5 }), async (tokens, queries) => {
          const tenant = `tenant-${randomUUID()}`;
          const docs = tokens.map((token) => fromSearchable(token, tenant));
          await put(docs);
          for (const generated of queries) {
            const query = remapIds(generated, tokens, docs);
            const expected = docs
              .filter((doc) => evaluateQuery(query, doc))
              .sort(byCreatedDescThenId)
              .map((d) => d.id);
            const got = await under.tokens.search({ tenantId: tenant, query, now: NOW, page: 1, size: 100 });
            expect(got.items.map((d) => d.id)).toEqual(expected);
            expect(got.total).toBe(expected.length);
          }
        }),
        { numRuns: options.propertyRuns ?? 60 },
      );
    });
  });
}

// Generated tokens reuse a handful of ids; stored documents need unique ones, so each gets a fresh id, and id terms
// are rewritten to the fresh id of the first token that carried the generated one (the same AST goes to both sides).
function fromSearchable(token: SearchableToken, tenant: string): TokenDocument {
  return aTokenRecord({ ...token, id: randomUUID(), tenant_id: tenant });
}

function remapIds(query: QueryNode, tokens: SearchableToken[], docs: TokenDocument[]): QueryNode {
  switch (query.kind) {
    case 'and':
    case 'or':
      return { ...query, children: query.children.map((c) => remapIds(c, tokens, docs)) };
    case 'not':
      return { ...query, child: remapIds(query.child, tokens, docs) };
    case 'term':
      if (query.field !== 'id') return query;
      return { ...query, value: docs.find((_d, i) => tokens[i].id.toLowerCase() === query.value)?.id ?? query.value };
    default:
      return query;
  }
}

const byCreatedDescThenId = (a: TokenDocument, b: TokenDocument) =>
  a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? 1 : -1;
