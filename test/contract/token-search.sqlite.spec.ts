import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModel, SqliteTokenSearchIndex, tokensTable, type SqliteTokenSearchOptions } from '@vault/adapters';
import { parseQuery, tokenKey } from '@vault/domain';
import { aTokenRecord } from '@vault/domain/search/token-record.builders';
import { describeTokenSearchContract } from './token-search.contract';

// The bitmap engine twice: with the default threshold (the corpus's postings are all small, so they come from
// SQLite's token_terms index) and with every posting kept in memory as a bitmap.
for (const [name, options] of [
  ['Embedded SQLite, bitmaps', {}],
  ['Embedded SQLite, bitmaps, every posting in memory', { broadPosting: 1 }],
] as const) {
  describeTokenSearchContract(
    name,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vault-tokens-'));
      const model = SqliteReadModel.open(dir, [tokensTable]);
      const tokens = new SqliteTokenSearchIndex(model, options);
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
  const run = async (options: SqliteTokenSearchOptions, query: string | null) => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-plans-'));
    const model = SqliteReadModel.open(dir, [tokensTable]);
    const reports: Array<[string, number]> = [];
    const tokens = new SqliteTokenSearchIndex(model, { ...options, onSearch: (plan, seconds) => reports.push([plan, seconds]) });
    try {
      const doc = aTokenRecord({ tenant_id: 'tenant-a', metadata: { tier: 'gold' } });
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

  it.each<[string, SqliteTokenSearchOptions, string | null, string]>([
    ['a query', {}, 'metadata.tier:gold', 'bitmaps'],
    ['no query', {}, null, 'bitmaps'],
    ['every posting in memory', { broadPosting: 1 }, 'metadata.tier:gold', 'bitmaps'],
  ])('%s: %j, %j → %s', async (_title, options, query, plan) => {
    expect(await run(options, query)).toEqual([[plan, expect.any(Number)]]);
  });
});
