import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModel, SqliteTokenSearchIndex, tokensTable, type SqliteTokenSearchOptions } from '@vault/adapters';
import { parseQuery, tokenKey } from '@vault/domain';
import { aTokenDocument, describeTokenSearchContract } from './token-search.contract';

// The bitmap engine twice: with the default threshold (the corpus's postings are all small, so they come from
// SQLite's token_terms index) and with every posting kept in memory as a bitmap. The SQL engine twice: with the
// adaptive plan (selective terms drive the query from token_terms, small counts on the event loop), and with every
// term treated as broad (checked row by row with EXISTS) and every count on the worker thread, so both SQL forms the
// compiler emits and both ways of counting are held to the same corpus.
for (const [name, options] of [
  ['Embedded SQLite, bitmaps', {}],
  ['Embedded SQLite, bitmaps, every posting in memory', { broadPosting: 1 }],
  ['Embedded SQLite, SQL engine', { engine: 'sql' }],
  ['Embedded SQLite, SQL engine, every term broad, counts on the worker thread', { engine: 'sql', selectiveLimit: 0, countInlineLimit: 0 }],
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

  it.each<[string, SqliteTokenSearchOptions, string | null, string]>([
    ['the default engine: bitmaps', {}, 'metadata.tier:gold', 'bitmaps'],
    ['SQL: a selective term drives the query from token_terms', { engine: 'sql' }, 'metadata.tier:gold', 'terms'],
    ['SQL: no term: the tenant\'s tokens in order', { engine: 'sql' }, null, 'scan'],
    ['SQL: every term broad', { engine: 'sql', selectiveLimit: 0 }, 'metadata.tier:gold', 'scan'],
    ['SQL: the count on the worker thread', { engine: 'sql', countInlineLimit: 0 }, 'metadata.tier:gold', 'terms-worker'],
    ['SQL: broad terms, the count on the worker thread', { engine: 'sql', selectiveLimit: 0, countInlineLimit: 0 }, 'metadata.tier:gold', 'scan-worker'],
  ])('%s: %j, %j → %s', async (_title, options, query, plan) => {
    expect(await run(options, query)).toEqual([[plan, expect.any(Number)]]);
  });
});
