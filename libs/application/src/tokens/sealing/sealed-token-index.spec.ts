// The event log keeps a token's fingerprint and search hashes only sealed under its data key: the log as written holds
// neither, every reader of the decorated store sees both, and once the key is destroyed they are gone for good.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AesGcmTokenCrypto, SqliteEventStore, SqliteKeyStore } from '@vault/adapters';
import { DomainError, type EventMetadata } from '@vault/domain';
import type { EventToAppend, RecordedEvent } from '../../ports/event-store';
import { SEALED_INDEX_FIELD, SealedTokenIndexEventStore } from './sealed-token-index';

describe('SealedTokenIndexEventStore', () => {
  let dir: string;
  let raw: SqliteEventStore;
  let keys: SqliteKeyStore;
  let crypto: AesGcmTokenCrypto;
  let events: SealedTokenIndexEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealed-index-'));
    raw = SqliteEventStore.open(dir);
    keys = SqliteKeyStore.open(dir);
    crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
    events = new SealedTokenIndexEventStore(raw, crypto);
  });
  afterEach(async () => {
    await events.close();
    keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const metadata = (tenantId: string): EventMetadata =>
    ({ tenant_id: tenantId, timestamp: new Date().toISOString(), correlation_id: randomUUID(), causation_id: null, actor: { type: 'application', id: randomUUID() } }) as unknown as EventMetadata;

  /** A token event as the use cases append it: data sealed first (which creates the data key), index in plaintext. */
  const tokenEvent = async (type: 'TokenCreated' | 'TokenUpdated', tenantId: string, id: string, index = { fingerprint: 'Fp' + randomUUID(), search_hashes: ['aa' + randomUUID(), 'cc' + randomUUID()] }) => {
    const encrypted = await crypto.encrypt(tenantId, id, '"123-45-6789"');
    return { type, data: { id, tenant_id: tenantId, encrypted, containers: ['/'], ...index }, metadata: metadata(tenantId) } satisfies EventToAppend;
  };

  const dataOf = (event: RecordedEvent) => event.data as Record<string, unknown>;

  it('writes neither the fingerprint nor the search hashes in the log, and every read gives both back', async () => {
    const tenantId = randomUUID();
    const id = randomUUID();
    const created = await tokenEvent('TokenCreated', tenantId, id);
    const updated = await tokenEvent('TokenUpdated', tenantId, id);
    await events.append(`token-${tenantId}_${id}`, [created], 'no_stream');
    await events.appendMany([{ streamId: `token-${tenantId}_${id}`, events: [updated], expected: 0n }]);

    const written = await raw.readStream(`token-${tenantId}_${id}`);
    const text = JSON.stringify(written.map((e) => e.data));
    for (const value of [created.data.fingerprint, updated.data.fingerprint, ...created.data.search_hashes, ...updated.data.search_hashes]) {
      expect(text).not.toContain(value);
    }
    for (const event of written) {
      expect(dataOf(event)).not.toHaveProperty('fingerprint');
      expect(dataOf(event)).not.toHaveProperty('search_hashes');
      expect(dataOf(event)[SEALED_INDEX_FIELD]).toEqual(expect.objectContaining({ alg: 'AES-256-GCM', key_ref: id }));
    }

    const expected = [created.data, updated.data];
    expect((await new SealedTokenIndexEventStore(raw, crypto).readAll(null, 10)).map(dataOf)).toEqual(expected);
    expect((await events.readStream(`token-${tenantId}_${id}`)).map(dataOf)).toEqual(expected);
    expect((await events.readAll(null, 10)).map(dataOf)).toEqual(expected);
    const delivered: RecordedEvent[] = [];
    const subscription = events.subscribe({ after: null, onEvents: async (batch) => void delivered.push(...batch), onCaughtUp: () => undefined });
    while (delivered.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.close();
    expect(delivered.map(dataOf)).toEqual(expected);
  });

  it('opens a deleted token\'s events without its index, and a deleted tenant\'s too', async () => {
    const tenantId = randomUUID();
    const [gone, kept] = [randomUUID(), randomUUID()];
    await events.append(`token-${tenantId}_${gone}`, [await tokenEvent('TokenCreated', tenantId, gone)], 'no_stream');
    const keptEvent = await tokenEvent('TokenCreated', tenantId, kept);
    await events.append(`token-${tenantId}_${kept}`, [keptEvent], 'no_stream');
    await keys.destroy(tenantId, gone);

    // Read as another process would (a rebuild, another API): nothing of this one's appends in its memory.
    const reader = new SealedTokenIndexEventStore(raw, crypto);
    const [first, second] = await reader.readAll(null, 10);
    expect(dataOf(first)).toEqual(expect.objectContaining({ id: gone, fingerprint: '', search_hashes: [] }));
    expect(dataOf(first)).not.toHaveProperty(SEALED_INDEX_FIELD);
    expect(dataOf(second)).toEqual(keptEvent.data);

    crypto.destroyTenantKey(tenantId);
    expect((await reader.readAll(null, 10)).map(dataOf)).toEqual([
      expect.objectContaining({ id: gone, fingerprint: '', search_hashes: [] }),
      expect.objectContaining({ id: kept, fingerprint: '', search_hashes: [] }),
    ]);
  });

  it('refuses to seal for a token whose key was destroyed meanwhile (404), creates no key and appends nothing', async () => {
    const tenantId = randomUUID();
    const id = randomUUID();
    const event = await tokenEvent('TokenUpdated', tenantId, id);
    await keys.destroy(tenantId, id);
    const error = await events.append(`token-${tenantId}_${id}`, [event], 'any').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('not_found');
    expect(await keys.get(tenantId, id)).toBeNull();
    expect(await raw.readAll(null, 10)).toEqual([]);
  });

  describe("this process's own appends", () => {
    let opened: number;
    const counting = (limit?: number) => {
      opened = 0;
      const counted = Object.assign(Object.create(crypto) as AesGcmTokenCrypto, {
        decrypt: (...args: Parameters<AesGcmTokenCrypto['decrypt']>) => {
          opened += 1;
          return crypto.decrypt(...args);
        },
        decryptMany: (...args: Parameters<AesGcmTokenCrypto['decryptMany']>) => {
          opened += args[1].length;
          return crypto.decryptMany(...args);
        },
      });
      return new SealedTokenIndexEventStore(raw, counted, limit);
    };

    it('are read back once without opening them (the live projector), then opened like any other', async () => {
      const store = counting();
      const tenantId = randomUUID();
      const ids = [randomUUID(), randomUUID()];
      const appended = await Promise.all(ids.map((id) => tokenEvent('TokenCreated', tenantId, id)));
      await store.append(`token-${tenantId}_${ids[0]}`, [appended[0]], 'no_stream');
      await store.appendMany([{ streamId: `token-${tenantId}_${ids[1]}`, events: [appended[1]], expected: 'no_stream' }]);
      expect((await store.readAll(null, 10)).map(dataOf)).toEqual(appended.map((e) => e.data));
      expect(opened).toBe(0);
      expect((await store.readAll(null, 10)).map(dataOf)).toEqual(appended.map((e) => e.data));
      expect(opened).toBe(2);
    });

    it("forget a token's index once its deletion is appended, and keep at most the limit", async () => {
      const store = counting(2);
      const tenantId = randomUUID();
      const gone = randomUUID();
      await store.append(`token-${tenantId}_${gone}`, [await tokenEvent('TokenCreated', tenantId, gone)], 'no_stream');
      await store.append(`token-${tenantId}_${gone}`, [{ type: 'TokenDeleted', data: { id: gone, tenant_id: tenantId }, metadata: metadata(tenantId) }], 0n);
      await keys.destroy(tenantId, gone);
      expect(dataOf((await store.readAll(null, 1))[0])).toEqual(expect.objectContaining({ fingerprint: '', search_hashes: [] }));

      const ids = [randomUUID(), randomUUID(), randomUUID()];
      for (const id of ids) await store.append(`token-${tenantId}_${id}`, [await tokenEvent('TokenCreated', tenantId, id)], 'no_stream');
      opened = 0;
      await store.readAll(null, 10);
      // The first of the three was dropped for the limit; the other two come from memory.
      expect(opened).toBe(1 + 1);
    });
    it("forget every token of a tenant once the tenant's deletion is appended, and no other tenant's", async () => {
      const store = counting();
      const [gone, kept] = [randomUUID(), randomUUID()];
      const appended = [];
      for (const tenantId of [gone, kept, gone]) {
        const id = randomUUID();
        const event = await tokenEvent('TokenCreated', tenantId, id);
        appended.push(event);
        await store.append(`token-${tenantId}_${id}`, [event], 'no_stream');
      }
      const deleted = { type: 'TenantDeleted', data: { id: gone, deleted_by: randomUUID(), deleted_at: new Date().toISOString() }, metadata: metadata(gone) };
      await store.append(`tenant-${gone}`, [deleted], 'any');
      expect((await store.readAll(null, 10)).map(dataOf)).toEqual([...appended.map((e) => e.data), deleted.data]);
      // The deleted tenant's two tokens were opened from the log; the other tenant's came from memory.
      expect(opened).toBe(2);
    });
  });

  it('passes other events, and token events written before the sealing, through unchanged', async () => {
    const tenantId = randomUUID();
    const id = randomUUID();
    const old = await tokenEvent('TokenCreated', tenantId, id);
    await raw.append(`token-${tenantId}_${id}`, [old], 'no_stream');
    const deleted = { type: 'TokenDeleted', data: { id, tenant_id: tenantId, reason: 'requested' }, metadata: metadata(tenantId) };
    await events.append(`token-${tenantId}_${id}`, [deleted], 0n);
    const read = await events.readAll(null, 10);
    expect(read.map(dataOf)).toEqual([old.data, deleted.data]);
    expect(dataOf((await raw.readAll(null, 10))[1])).toEqual(deleted.data);
  });
});
