// The pure part of the Meilisearch proxy read model, the document it indexes; everything that talks to a server is in
// test/contract/proxy-read-model.meili.spec.ts.
import type { ProxyDocument } from '@vault/application';
import { formulaNameGrams, formulaSortKey } from './meili-formulas';
import { meiliProxiesCollection } from './meili-proxies';

const proxy: ProxyDocument = {
  id: 'e0e0e0e0-0000-4000-8000-000000000001',
  tenant_id: '4eac7000-0000-4000-8000-000000000001',
  name: 'Card Gateway',
  require_auth: true,
  application_id: null,
  key_hash: 'a'.repeat(64),
  sealed: { v: 1, alg: 'AES-256-GCM', key_ref: 'proxy:e0e0e0e0-0000-4000-8000-000000000001', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' },
  created_by: 'app',
  created_at: '2024-05-01T10:00:00.000Z',
  modified_by: null,
  modified_at: null,
};
const key = `${proxy.tenant_id}_${proxy.id}`;

describe('meiliProxiesCollection', () => {
  it('indexes the tenant, the key hash and the name as the formula index does, beside the document kept whole', () => {
    const document = meiliProxiesCollection.toDocument(key, 3n, proxy as unknown as Record<string, unknown>);
    expect(document).toEqual({
      id: key,
      _revision: 3,
      doc: JSON.stringify(proxy),
      tenant_id: proxy.tenant_id,
      key_hash: proxy.key_hash,
      name: 'Card Gateway',
      name_sort: formulaSortKey('Card Gateway'),
      name_grams: formulaNameGrams('Card Gateway'),
    });
    expect(meiliProxiesCollection.fromDocument(document)).toEqual(proxy);
  });

  it('filters and sorts only on what lists and the key lookup need: never on the sealed secrets', () => {
    expect(meiliProxiesCollection.settings).toEqual({
      filterableAttributes: ['tenant_id', 'key_hash', 'name_grams', 'id'],
      sortableAttributes: ['name_sort', 'id'],
    });
  });

  it("selects a deleted tenant's proxies for its purge", () => {
    expect(meiliProxiesCollection.tenantFilter?.(proxy.tenant_id)).toBe(`tenant_id = "${proxy.tenant_id}"`);
  });
});
