// Every field of SEARCH_FIELDS compiles to SQL that selects, from real rows of the tokens table, exactly the tokens the
// reference evaluator accepts: in both forms the compiler emits (driven from token_terms, or checked row by row).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATE_FIELDS, evaluateQuery, parseQuery, type SearchableToken } from '@vault/domain';
import { fieldExamples, matchingToken, otherToken } from '@vault/domain/search/query.field-examples';
import { statement } from '../../../sqlite/open-database';
import { SqliteReadModel } from '../sqlite-read-model';
import { compileTokenQuery } from './sqlite-token-sql';
import { tokensTable } from './sqlite-tokens';

const TENANT = 'tenant-a';
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const documentOf = (token: SearchableToken) => ({
  id: token.id,
  tenant_id: TENANT,
  type: token.type,
  encrypted: { v: 1, alg: 'AES-256-GCM', key_ref: token.id, iv: 'aQ==', ciphertext: 'Yw==', tag: 'dA==' },
  fingerprint: token.fingerprint,
  fingerprint_expression: '{{ data }}',
  mask: null,
  masked: null,
  containers: token.containers,
  metadata: token.metadata,
  search_indexes: [],
  search_hashes: token.data_index,
  expires_at: null,
  created_by: token.created_by,
  modified_by: token.modified_by,
  // Every date field of SEARCH_FIELDS, as the projection writes it.
  ...Object.fromEntries(DATE_FIELDS.map((field) => [field, iso(token[field])])),
});

describe('compileTokenQuery on every field of SEARCH_FIELDS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-token-sql-'));
  const model = SqliteReadModel.open(dir, [tokensTable]);
  const tokens = [matchingToken, otherToken];

  beforeAll(async () => {
    const docs = tokens.map((token) => ({ collection: 'tokens', id: token.id, revision: 0n, doc: documentOf(token) }));
    await model.commit(docs, { commit: 1n, prepare: 1n });
  });
  afterAll(async () => {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases = fieldExamples.flatMap(({ query }) => [query, `NOT ${query}`]);
  it.each(cases.flatMap((query) => [[query, 'driven from token_terms', true] as const, [query, 'row by row', false] as const]))(
    '%s, %s',
    (text, _plan, selective) => {
      const query = parseQuery(text)!;
      const condition = compileTokenQuery(query, TENANT, { selective: () => selective });
      const rows = statement(model.database, `SELECT t.id FROM tokens t WHERE t.tenant_id = ? AND (${condition.sql}) ORDER BY t.id`).all(
        TENANT,
        ...condition.params,
      ) as Array<{ id: string }>;
      const expected = tokens.filter((token) => evaluateQuery(query, token)).map((token) => token.id);
      expect(rows.map((row) => row.id)).toEqual(expected.sort());
      // One of the two tokens matches and the other does not, so the comparison says something either way.
      expect(expected).toHaveLength(1);
    },
  );
});
