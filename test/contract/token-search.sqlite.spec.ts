import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModel, SqliteTokenSearchIndex, tokensTable } from '@vault/adapters';
import { parseQuery, tokenKey } from '@vault/domain';
import { aTokenDocument, describeTokenSearchContract } from './token-search.contract';

// Twice: with the adaptive plan (selective terms drive the query from token_terms, small counts on the event loop),
// and with every term treated as broad (checked row by row with EXISTS) and every count on the worker thread, so both
// SQL forms the compiler emits and both ways of counting are held to the same corpus.
for (const [name, limit] of [
  ['Embedded SQLite', undefined],
  ['Embedded SQLite, every term broad, counts on the worker thread', 0],
] as const) {
  describeTokenSearchContract(
    name,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vault-tokens-'));
      const model = SqliteReadModel.open(dir, [tokensTable]);
      const tokens = new SqliteTokenSearchIndex(model, { selectiveLimit: limit, countInlineLimit: limit });
      return {
        index: { projectionStore: model, tokens },
        dispose: async () => {
          await tokens.close();
          await model.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    { propertyRuns: 150 },
  );
}

describe('Embedded SQLite token search, reporting its plan', () => {
  const run = async (options: { selectiveLimit?: number; countInlineLimit?: number }, query: string | null) => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-plans-'));
    const model = SqliteReadModel.open(dir, [tokensTable]);
    const reports: Array<[string, number]> = [];
    const tokens = new SqliteTokenSearchIndex(model, { ...options, onSearch: (plan, seconds) => reports.push([plan, seconds]) });
    try {
      const doc = aTokenDocument({ tenant_id: 'tenant-a', metadata: { tier: 'gold' } });
      await model.commit([{ collection: 'tokens', id: tokenKey(doc.tenant_id, doc.id), revision: 0n, doc: doc as never }], { commit: 1n, prepare: 1n });
      const page = await tokens.search({ tenantId: 'tenant-a', query: query === null ? null : parseQuery(query), now: Date.now(), page: 1, size: 20 });
      expect(page.total).toBe(1);
      return reports;
    } finally {
      await tokens.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it.each<[string, { selectiveLimit?: number; countInlineLimit?: number }, string | null, string]>([
    ['a selective term drives the query from token_terms', {}, 'metadata.tier:gold', 'terms'],
    ['no term: the tenant\'s tokens in order', {}, null, 'scan'],
    ['every term broad', { selectiveLimit: 0 }, 'metadata.tier:gold', 'scan'],
    ['the count on the worker thread', { countInlineLimit: 0 }, 'metadata.tier:gold', 'terms-worker'],
    ['broad terms, the count on the worker thread', { selectiveLimit: 0, countInlineLimit: 0 }, 'metadata.tier:gold', 'scan-worker'],
  ])('%s: %j, %j → %s', async (_title, options, query, plan) => {
    expect(await run(options, query)).toEqual([[plan, expect.any(Number)]]);
  });
});
