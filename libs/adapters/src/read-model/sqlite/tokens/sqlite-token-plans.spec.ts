// Selective searches must be index lookups, never a scan of the tokens table, whatever the table's size.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseQuery } from '@vault/domain';
import { SqliteReadModel } from '../sqlite-read-model';
import { SqliteTokenSearchIndex, tokensTable } from './sqlite-tokens';

describe('SQLite token search plans', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-plans-'));
  const model = SqliteReadModel.open(dir, [tokensTable]);
  const index = new SqliteTokenSearchIndex(model);
  const tenant = randomUUID();
  const known = { id: '', fingerprint: '' };

  beforeAll(async () => {
    // Enough tokens for the planner statistics (refreshed as the read model grows) to describe a realistic table.
    for (let batch = 0; batch < 10; batch++) {
      const docs = Array.from({ length: 500 }, (_, i) => {
        const n = batch * 500 + i;
        const id = randomUUID();
        if (n === 1234) Object.assign(known, { id, fingerprint: `fp${n}` });
        return {
          collection: 'tokens',
          id,
          revision: 0n,
          doc: {
            id, tenant_id: tenant, type: ['token', 'card_number', 'social_security_number'][n % 3],
            encrypted: { v: 1, alg: 'AES-256-GCM', key_ref: id, iv: 'aQ==', ciphertext: 'Yw==', tag: 'dA==' },
            fingerprint: `fp${n}`, fingerprint_expression: '{{ data }}', mask: null, masked: null,
            containers: [['/pci/high/', '/pii/high/', '/customers/eu/'][n % 3]], metadata: { customer_id: `c${n % 1000}`, tier: n % 2 ? 'gold' : 'silver' },
            search_indexes: [], search_hashes: [`h${n}`, `last${n % 100}`], expires_at: null,
            created_by: 'app', created_at: new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString(), modified_by: null, modified_at: null,
          },
        };
      });
      await model.commit(docs, { commit: BigInt(batch + 1), prepare: BigInt(batch + 1) });
    }
  });
  afterAll(async () => {
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scansTokens = (plan: string[]) => plan.some((line) => /^SCAN t\b/.test(line));

  it.each([
    ['id:KNOWN_ID'],
    ['fingerprint:KNOWN_FP'],
    ['data:h1233'],
    ['data:last7'],
    ['metadata.customer_id:c42'],
    ['metadata.customer_id:c42 AND type:token'],
    ['data:h1 OR data:h2 OR fingerprint:fp3'],
  ])('%s uses indexes for both the count and the page', async (text) => {
    const query = parseQuery(text.replace('KNOWN_ID', known.id).replace('KNOWN_FP', known.fingerprint));
    const plan = index.explain(tenant, query, Date.UTC(2030, 0, 1));
    expect(scansTokens(plan.count)).toBe(false);
    expect(scansTokens(plan.page)).toBe(false);
    expect(plan.page.join(' | ')).toMatch(/USING (INDEX|COVERING INDEX|INTEGER PRIMARY KEY)/);
    const result = await index.search({ tenantId: tenant, query, now: Date.UTC(2030, 0, 1), page: 1, size: 20 });
    expect(result.total).toBeGreaterThanOrEqual(1);
  });
});
