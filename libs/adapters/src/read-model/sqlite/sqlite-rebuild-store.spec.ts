// A rebuild's bulk writes produce the file the live projector's upserts produce, row for row and rowid for rowid:
// tokens (their terms, case folding, duplicate terms, expiry), audit entries, proxies, updates and deletes of documents
// written in earlier batches, documents re-created after a delete, and a deleted tenant's purge.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  applyBatch,
  auditProjection,
  EventStore,
  EventToAppend,
  ProjectionSet,
  proxiesProjection,
  rebuildReadModel,
  tenantsProjection,
  tokensProjection,
} from '@vault/application';
import { proxyStream, type ProxyCreatedData, type TokenContent } from '@vault/domain';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { auditTable } from './sqlite-audit';
import { applicationsTable, tenantsTable } from './sqlite-directory';
import { formulasTable } from './sqlite-formulas';
import { proxiesTable } from './sqlite-proxies';
import { reactorsTable } from './sqlite-reactors';
import type { SqliteCollection } from './sqlite-collection';
import { SqliteReadModel } from './sqlite-read-model';
import { tokensTable } from './tokens/tokens-table';

const T1 = '7e57e57e-0000-4000-8000-000000000001';
const T2 = '7e57e57e-0000-4000-8000-000000000002';
const APP = 'a99a99a9-0000-4000-8000-000000000001';
const collections = [tenantsTable, applicationsTable, formulasTable, tokensTable, reactorsTable, proxiesTable, auditTable];
const projections = new ProjectionSet([tenantsProjection, tokensProjection, proxiesProjection, auditProjection]);

let clock = Date.parse('2024-05-01T10:00:00.000Z');
const at = () => new Date((clock += 1000)).toISOString();
const meta = (tenant: string | null, timestamp: string) => ({
  tenant_id: tenant,
  actor: { type: 'application' as const, id: APP },
  timestamp,
  correlation_id: 'c-1',
});
const tokenId = (n: number) => `b0b0b0b0-0000-4000-8000-${String(n).padStart(12, '0')}`;

const content = (n: number, overrides: Partial<TokenContent> = {}): TokenContent => ({
  type: n % 3 === 0 ? 'card_number' : 'token',
  encrypted: { v: 1, alg: 'AES-256-GCM', key_ref: tokenId(n), iv: 'aXY=', ciphertext: `Y3Q${n}`, tag: 'dGFn' },
  fingerprint: `fp${n % 4}`,
  fingerprint_expression: '{{ data }}',
  mask: null,
  masked: null,
  // Upper case and repeats: the terms are folded and kept once.
  containers: n % 2 === 0 ? ['/PCI/high/', '/pci/HIGH/'] : ['/general/high/'],
  metadata: n % 5 === 0 ? { Tier: 'Gold', tier: 'gold', customer: `C${n}` } : {},
  search_indexes: ['{{ data }}'],
  search_hashes: n % 4 === 0 ? ['AB12', 'ab12'] : [`h${n}`],
  expires_at: n % 7 === 0 ? '2030-01-01T00:00:00.000Z' : null,
  ...overrides,
});

type Append = { stream: string; event: EventToAppend };
const created = (tenant: string, n: number): Append => {
  const when = at();
  return {
    stream: `token-${tenant}_${tokenId(n)}`,
    event: { type: 'TokenCreated', data: { id: tokenId(n), tenant_id: tenant, ...content(n), created_by: APP, created_at: when }, metadata: meta(tenant, when) },
  };
};
const updated = (tenant: string, n: number, overrides: Partial<TokenContent>): Append => {
  const when = at();
  return {
    stream: `token-${tenant}_${tokenId(n)}`,
    event: {
      type: 'TokenUpdated',
      data: { id: tokenId(n), tenant_id: tenant, ...content(n, overrides), modified_by: APP, modified_at: when },
      metadata: meta(tenant, when),
    },
  };
};
const deleted = (tenant: string, n: number): Append => {
  const when = at();
  return {
    stream: `token-${tenant}_${tokenId(n)}`,
    event: { type: 'TokenDeleted', data: { id: tokenId(n), tenant_id: tenant, reason: 'requested', deleted_by: APP, deleted_at: when }, metadata: meta(tenant, when) },
  };
};
const revealed = (tenant: string, n: number): Append => {
  const when = at();
  return {
    stream: `audit-${tenant}`,
    event: {
      type: 'AccessRecorded',
      data: { tenant_id: tenant, entity_type: 'token', entity_id: tokenId(n), operation: 'reveal', via: 'get', created_at: when },
      metadata: meta(tenant, when),
    },
  };
};
const proxyId = (n: number) => `c0c0c0c0-0000-4000-8000-${String(n).padStart(12, '0')}`;
const proxyFields = (tenant: string, n: number, name: string): Omit<ProxyCreatedData, 'created_by' | 'created_at'> => ({
  id: proxyId(n),
  tenant_id: tenant,
  name,
  require_auth: n % 2 === 0,
  application_id: null,
  key_hash: `${n}`.padStart(64, 'f'),
  sealed: { v: 1, alg: 'AES-256-GCM', key_ref: `proxy:${proxyId(n)}`, iv: 'aXY=', ciphertext: `cHg${n}`, tag: 'dGFn' },
});
const proxy = (tenant: string, n: number, type: 'ProxyCreated' | 'ProxyUpdated' | 'ProxyDeleted', name = `Proxy ${n}`): Append => {
  const when = at();
  const data =
    type === 'ProxyCreated'
      ? { ...proxyFields(tenant, n, name), created_by: APP, created_at: when }
      : type === 'ProxyUpdated'
        ? { ...proxyFields(tenant, n, name), modified_by: APP, modified_at: when }
        : { id: proxyId(n), tenant_id: tenant, deleted_by: APP, deleted_at: when };
  return { stream: proxyStream(tenant, proxyId(n)), event: { type, data, metadata: meta(tenant, when) } };
};
const tenant = (id: string, type: 'TenantCreated' | 'TenantDeleted'): Append => {
  const when = at();
  const data = type === 'TenantCreated' ? { id, name: `tenant ${id.slice(-1)}`, created_by: 'cli', created_at: when } : { id, deleted_by: 'cli', deleted_at: when };
  return { stream: `tenant-${id}`, event: { type, data, metadata: { ...meta(null, when), actor: { type: 'operator', id: 'cli' } } } };
};

function theLog(): Append[] {
  const log: Append[] = [tenant(T1, 'TenantCreated'), tenant(T2, 'TenantCreated')];
  for (let n = 1; n <= 24; n++) log.push(created(n % 6 === 0 ? T2 : T1, n));
  log.push(updated(T1, 3, { containers: ['/Moved/'], metadata: { Owner: 'Ada' }, search_hashes: ['NEW'] }));
  log.push(revealed(T1, 3), deleted(T1, 4), revealed(T1, 5));
  log.push(proxy(T1, 1, 'ProxyCreated'), proxy(T1, 2, 'ProxyCreated'), proxy(T2, 3, 'ProxyCreated'), proxy(T1, 1, 'ProxyUpdated', 'Renamed'));
  for (let n = 25; n <= 40; n++) log.push(created(T1, n));
  log.push(updated(T1, 5, { expires_at: '2031-01-01T00:00:00.000Z' }), updated(T1, 5, { type: 'card_number' }));
  log.push(proxy(T1, 2, 'ProxyDeleted'));
  log.push(tenant(T2, 'TenantDeleted'), created(T2, 41), revealed(T2, 6), proxy(T2, 4, 'ProxyCreated'));
  for (let n = 42; n <= 60; n++) log.push(created(T1, n), revealed(T1, n - 1));
  log.push(deleted(T1, 60));
  for (let n = 61; n <= 70; n++) log.push(created(T1, n));
  return log;
}

/**
 * Every table but the live file's change log (a rebuilt file has none) and the planner statistics (sampled at other
 * times), rows in a stable order.
 */
function dump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    // broad_terms and token_index_state: the search bitmaps' build hints, which a rebuild lists before its swap.
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('token_changes', 'sqlite_stat1', 'planner_statistics', 'broad_terms', 'token_index_state') ORDER BY name")
        .all() as Array<{ name: string }>
    ).map(
      ({ name }) => name,
    );
    return Object.fromEntries(
      tables.map((name) => {
        const rows = db.prepare(`SELECT * FROM ${name}${name === 'sqlite_sequence' ? " WHERE name <> 'token_changes'" : ''}`).all();
        return [name, rows.map((row) => JSON.stringify(row)).sort()];
      }),
    );
  } finally {
    db.close();
  }
}

describe('rebuild store (bulk inserts into a fresh file)', () => {
  let dataDir: string;
  let events: EventStore;
  let model: SqliteReadModel;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-rebuild-store-'));
    events = SqliteEventStore.open(dataDir);
    for (const { stream, event } of theLog()) await events.append(stream, [event], 'any');
    model = SqliteReadModel.open(dataDir, collections);
  });

  afterEach(async () => {
    await model.close();
    await events.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The live projector's way: batches through applyBatch and the upserting commit. */
  const projectLive = async (batch: number) => {
    for (let cursor = null, page; (page = await events.readAll(cursor, batch)).length > 0; ) {
      cursor = page[page.length - 1].position;
      await model.commit(await applyBatch(page, projections, model), cursor);
    }
  };
  const rebuiltFile = () => join(dataDir, 'readmodel', readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8').trim());

  // Rowids depend on the batches (a token created and deleted within one batch never gets one), so each side replays
  // the log in batches of the same size.
  it.each([1, 7, 5000])('writes the rows the live projector writes, rowids included, in batches of %i', async (batch) => {
    await projectLive(batch);
    const live = dump(model.path);
    expect(live.tokens.length).toBeGreaterThan(50);
    expect(live.audit.length).toBeGreaterThan(60);
    // Proxy 1 renamed, 2 deleted, 3 with its tenant, 4 created after its tenant was deleted.
    expect(live.proxies.map((row) => JSON.parse(row as string).proxy_id)).toEqual([proxyId(1)]);
    await rebuildReadModel(events, model, projections, () => undefined, { batch });
    expect(rebuiltFile()).not.toBe(model.path);
    expect(dump(rebuiltFile())).toEqual(live);
    const db = new Database(rebuiltFile(), { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM token_changes').get()).toEqual({ n: 0 });
    // The bitmaps' hint list is complete before the swap, so no API counts every posting after it.
    expect(db.prepare('SELECT key, value FROM token_index_state').all()).toEqual([{ key: 'broad_terms', value: 'complete' }]);
    db.close();
  });

  it('numbers tokens in the order they were created', async () => {
    await rebuildReadModel(events, model, projections, () => undefined, { batch: 7 });
    const db = new Database(rebuiltFile(), { readonly: true });
    const ids = (db.prepare('SELECT id FROM tokens ORDER BY rowid').all() as Array<{ id: string }>).map((row) => Number(row.id.slice(-12)));
    db.close();
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // Deleted: 4 and 60 by their own events, 6, 12, 18, 24 and 41 with their tenant.
    expect(ids).toHaveLength(70 - 7);
  });

  it('fails when the writer thread fails, leaving the live read model and its pointer as they were', async () => {
    // A collection whose rows name a table that does not exist: the writer thread's INSERT fails.
    const broken: SqliteCollection = {
      ...auditTable,
      name: 'broken',
      bulkWriter: () => ({ rowsOf: (docs) => [{ head: 'INSERT INTO no_such_table (id)', width: 1, values: docs.map((doc) => doc.id) }] }),
    };
    await model.close();
    model = SqliteReadModel.open(dataDir, [...collections, broken]);
    const before = readdirSync(join(dataDir, 'readmodel')).sort();
    const pointer = readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8');
    const withBroken = new ProjectionSet([tenantsProjection, tokensProjection, { ...auditProjection, collection: 'broken' }]);
    await expect(rebuildReadModel(events, model, withBroken, () => undefined, { batch: 7 })).rejects.toThrow(/no_such_table/);
    expect(readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8')).toBe(pointer);
    expect(readdirSync(join(dataDir, 'readmodel')).sort()).toEqual(before);
  });
});
