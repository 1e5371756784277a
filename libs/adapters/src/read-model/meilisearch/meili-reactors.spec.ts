// The pure part of the Meilisearch reactor read model, the document it indexes; everything that talks to a server is
// in test/contract/reactor-read-model.meili.spec.ts.
import type { ReactorDocument } from '@vault/application';
import { formulaNameGrams, formulaSortKey } from './meili-formulas';
import { meiliReactorsCollection } from './meili-reactors';

const reactor: ReactorDocument = {
  id: 'e0e0e0e0-0000-4000-8000-000000000001',
  tenant_id: '4eac7000-0000-4000-8000-000000000001',
  formula_id: 'f0f0f0f0-0000-4000-8000-00000000000f',
  name: 'Charge Card',
  configuration: { v: 1, alg: 'AES-256-GCM', key_ref: 'reactor:e0e0e0e0-0000-4000-8000-000000000001', iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' },
  configuration_shape: [{ name: 'api_key', type: 'string' }],
  application_id: null,
  created_by: 'app',
  created_at: '2024-05-01T10:00:00.000Z',
  modified_by: null,
  modified_at: null,
};
const key = `${reactor.tenant_id}_${reactor.id}`;

describe('meiliReactorsCollection', () => {
  it('indexes the tenant, the formula and the name as the formula index does, beside the document kept whole', () => {
    const document = meiliReactorsCollection.toDocument(key, 3n, reactor as unknown as Record<string, unknown>);
    expect(document).toEqual({
      id: key,
      _revision: 3,
      doc: JSON.stringify(reactor),
      tenant_id: reactor.tenant_id,
      formula_id: reactor.formula_id,
      name: 'Charge Card',
      name_sort: formulaSortKey('Charge Card'),
      name_grams: formulaNameGrams('Charge Card'),
    });
    expect(meiliReactorsCollection.fromDocument(document)).toEqual(reactor);
  });

  it('filters and sorts only on what lists and the formula check need: never on the sealed configuration', () => {
    expect(meiliReactorsCollection.settings).toEqual({
      filterableAttributes: ['tenant_id', 'formula_id', 'name_grams', 'id'],
      sortableAttributes: ['name_sort', 'id'],
    });
  });
});
