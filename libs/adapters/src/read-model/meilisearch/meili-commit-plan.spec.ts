import { PURGE_TENANT, type DocumentChange } from '@vault/application';
import type { MeiliDocument } from './meili-collection';
import { chunkByBytes, MAX_PAYLOAD_BYTES, planCommit, tombstoneId } from './meili-commit-plan';

const upsert = (collection: string, id: string, revision = 0n, doc: Record<string, unknown> = { id }): DocumentChange => ({
  collection,
  id,
  revision,
  doc,
});
const remove = (collection: string, id: string, revision: bigint): DocumentChange => ({ collection, id, revision, doc: null });
const toDocument = (c: DocumentChange & { doc: Record<string, unknown> }): MeiliDocument => ({ id: c.id, _revision: Number(c.revision), doc: JSON.stringify(c.doc) });

describe('planCommit', () => {
  it('writes the documents of a whole catch-up batch with one request per collection', () => {
    const changes = [
      ...Array.from({ length: 3000 }, (_, i) => upsert('tokens', `t${i}`, 1n)),
      ...Array.from({ length: 200 }, (_, i) => upsert('applications', `a${i}`)),
      upsert('tenants', 'one'),
    ];
    const plan = planCommit(changes, toDocument);
    expect(plan.upserts.map((u) => [u.collection, u.documents.length])).toEqual([
      ['tokens', 3000],
      ['applications', 200],
      ['tenants', 1],
    ]);
    expect(plan.deletes).toEqual([]);
    expect(plan.tombstones).toEqual([]);
  });

  it('deletes per collection and writes every tombstone in one request', () => {
    const plan = planCommit([remove('tokens', 't1', 4n), upsert('tokens', 't2', 1n), remove('tokens', 't3', 2n), remove('applications', 'a1', 9n)], toDocument);
    expect(plan.deletes).toEqual([
      { collection: 'tokens', ids: ['t1', 't3'] },
      { collection: 'applications', ids: ['a1'] },
    ]);
    expect(plan.tombstones).toEqual([
      [
        { id: tombstoneId('tokens', 't1'), collection: 'tokens', doc_id: 't1', _revision: 4 },
        { id: tombstoneId('tokens', 't3'), collection: 'tokens', doc_id: 't3', _revision: 2 },
        { id: tombstoneId('applications', 'a1'), collection: 'applications', doc_id: 'a1', _revision: 9 },
      ],
    ]);
    expect(plan.upserts).toEqual([{ collection: 'tokens', documents: [{ id: 't2', _revision: 1, doc: '{"id":"t2"}' }] }]);
  });

  it('keeps a deleted tenant’s purge apart from the documents: no tombstone, no delete by id, only the tenant to purge', () => {
    const plan = planCommit([upsert('tokens', 't1'), { collection: PURGE_TENANT, id: 'tenant-a', revision: 3n, doc: null }], toDocument);
    expect(plan.purgedTenants).toEqual(['tenant-a']);
    expect(plan.deletes).toEqual([]);
    expect(plan.tombstones).toEqual([]);
    expect([...plan.touched]).toEqual([['tokens', ['t1']]]);
  });

  it('lists every id it touches, written or deleted, for a repair to check', () => {
    const plan = planCommit([upsert('tokens', 't1'), remove('tokens', 't2', 1n), upsert('tenants', 'x')], toDocument);
    expect([...plan.touched]).toEqual([
      ['tokens', ['t1', 't2']],
      ['tenants', ['x']],
    ]);
  });

  it('splits a collection’s documents where a request body would pass the payload budget, keeping their order', () => {
    const big = 'x'.repeat(1000);
    const changes = Array.from({ length: 10 }, (_, i) => upsert('tokens', `t${i}`, 0n, { big }));
    const plan = planCommit(changes, toDocument, 3500);
    expect(plan.upserts.map((u) => u.documents.map((d) => d.id))).toEqual([
      ['t0', 't1', 't2'],
      ['t3', 't4', 't5'],
      ['t6', 't7', 't8'],
      ['t9'],
    ]);
    for (const { documents } of plan.upserts) expect(Buffer.byteLength(JSON.stringify(documents))).toBeLessThanOrEqual(3500);
  });

  it('plans nothing for an empty batch (the commit then writes only its checkpoint)', () => {
    expect(planCommit([], toDocument)).toEqual({ tombstones: [], upserts: [], deletes: [], touched: new Map(), purgedTenants: [] });
  });

  it('keeps the budget well under Meilisearch’s default payload limit of 100 MB', () => {
    expect(MAX_PAYLOAD_BYTES).toBeLessThanOrEqual(100_000_000 / 4);
  });
});

describe('chunkByBytes', () => {
  it.each([
    ['fits in one chunk', ['aa', 'bb', 'cc'], 100, [['aa', 'bb', 'cc']]],
    // ["aa","bb"] is 11 bytes
    ['splits at the budget', ['aa', 'bb', 'cc', 'dd'], 11, [['aa', 'bb'], ['cc', 'dd']]],
    ['gives an item over the budget a chunk of its own', ['a', 'x'.repeat(50), 'b'], 20, [['a'], ['x'.repeat(50)], ['b']]],
    ['has no chunk for no items', [], 10, []],
  ])('%s', (_case, items, max, expected) => {
    const chunked = chunkByBytes(items, max);
    expect(chunked).toEqual(expected);
    for (const chunk of chunked) if (chunk.length > 1) expect(Buffer.byteLength(JSON.stringify(chunk))).toBeLessThanOrEqual(max);
  });

  it('counts bytes, not characters', () => {
    // "é" is two bytes in UTF-8: ["éé","éé"] is 15 bytes but 11 characters.
    expect(chunkByBytes(['éé', 'éé'], 12)).toEqual([['éé'], ['éé']]);
  });
});
