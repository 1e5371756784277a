// Naming and validation only: everything that talks to a server is in test/contract/read-model.meili.spec.ts.
import { meiliDocumentIndex } from './meili-collection';
import { tombstoneId } from './meili-commit-plan';
import { meiliIndexNames, MeiliReadModel } from './meili-read-model';

const notes = meiliDocumentIndex('notes', {}, { filterableAttributes: [], sortableAttributes: [] });

describe('meiliIndexNames', () => {
  it('names one index per collection plus checkpoints and tombstones under the prefix', () => {
    const names = meiliIndexNames('vault', ['tenants', 'applications']);
    expect([...names.collections]).toEqual([
      ['tenants', 'vault_tenants'],
      ['applications', 'vault_applications'],
    ]);
    expect(names.checkpoints).toBe('vault_checkpoints');
    expect(names.tombstones).toBe('vault_tombstones');
  });

  it('gives a rebuild its own generation of every index', () => {
    const names = meiliIndexNames('vault', ['tenants'], '_rebuild_1');
    expect([...names.collections.values(), names.checkpoints, names.tombstones]).toEqual([
      'vault_tenants_rebuild_1',
      'vault_checkpoints_rebuild_1',
      'vault_tombstones_rebuild_1',
    ]);
  });
});

describe('tombstoneId', () => {
  it('is a valid Meilisearch document id that cannot collide across collections', () => {
    const id = tombstoneId('applications', '0b6f3c1e-8d0a-4c55-9a43-2f1f4f0f2b10');
    expect(id).toMatch(/^[A-Za-z0-9_-]{1,511}$/);
    expect(tombstoneId('a_b', 'c')).not.toBe(tombstoneId('a', 'b_c'));
  });
});

describe('MeiliReadModel', () => {
  // Constructing the client does not contact the server.
  const open = (indexPrefix: string | undefined, name = 'notes') =>
    new MeiliReadModel({ host: 'http://127.0.0.1:7700', indexPrefix }, [{ ...notes, name }]);

  it('defaults the index prefix to vault and says where it lives', () => {
    expect(open(undefined).describe()).toBe('Meilisearch read model at http://127.0.0.1:7700 (indexes vault_*)');
  });

  it.each(['has space', 'a/b', ''])('refuses the index prefix %j', (prefix) => {
    expect(() => open(prefix)).toThrow(/prefix/);
  });

  it.each(['Notes', 'with-hyphen', '1st'])('refuses the collection name %j (tombstone ids rely on it)', (name) => {
    expect(() => open('vault', name)).toThrow(/collection name/);
  });

  it('refuses a collection it was not given', async () => {
    await expect(open('vault').load('unknown', ['x'])).rejects.toThrow(/No Meilisearch collection "unknown"/);
  });
});
