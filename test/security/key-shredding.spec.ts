// Crypto-shredding follows from the event log: a TokenDeleted destroys its data key even when the key store failed at
// the time, or the process died between the delete and the shredding.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  keyShreddingProjection,
  Projector,
  ProjectionSet,
  type DocumentChange,
  type EventToAppend,
  type LogPosition,
  type ProjectionStore,
} from '@vault/application';
import { KeyShreddingStore, SqliteEventStore, SqliteKeyStore } from '@vault/adapters';
import { tokenStream } from '@vault/domain';

const TENANT = '0b5f0a7e-8f0c-4c3e-9a55-0b1f1b2c3d4e';
const silent = { info: () => undefined, error: () => undefined };

/** Our own store with a fault in front of it: the first `failures` commits throw, as a full disk or a lock would. */
class FailingFirst implements ProjectionStore {
  commits = 0;
  constructor(private readonly inner: ProjectionStore, private failures: number) {}
  checkpoint() {
    return this.inner.checkpoint();
  }
  load(collection: string, ids: string[]) {
    return this.inner.load(collection, ids);
  }
  async commit(changes: DocumentChange[], checkpoint: LogPosition) {
    this.commits++;
    if (this.failures-- > 0) throw new Error('disk I/O error');
    return this.inner.commit(changes, checkpoint);
  }
}

const deleted = (id: string): EventToAppend => ({
  type: 'TokenDeleted',
  data: { id, tenant_id: TENANT, reason: 'requested', deleted_by: 'app', deleted_at: '2026-01-01T00:00:00.000Z' },
  metadata: { tenant_id: TENANT, actor: { type: 'application', id: 'app' }, timestamp: '2026-01-01T00:00:00.000Z', correlation_id: 'c' },
});

describe('key shredding', () => {
  let dir: string;
  let events: SqliteEventStore;
  let keys: SqliteKeyStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vault-shred-'));
    events = SqliteEventStore.open(dir);
    keys = SqliteKeyStore.open(dir);
  });
  afterEach(async () => {
    await events.close();
    keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keyOf = (id: string) => keys.get(TENANT, id);
  const putKey = (id: string) => keys.put(TENANT, id, new Uint8Array(61).fill(7));

  it('destroys the key of a token deleted while no shredder ran, from its checkpoint, once', async () => {
    await putKey('t1');
    await putKey('t2');
    const { position } = await events.append(tokenStream(TENANT, 't1'), [deleted('t1')], 'any');
    const shredder = new Projector(events, new KeyShreddingStore(keys), new ProjectionSet([keyShreddingProjection]), silent);
    await shredder.start();
    expect(await shredder.waitFor(position, 5000)).toBe(true);
    expect(await keyOf('t1')).toBeNull();
    expect(await keyOf('t2')).not.toBeNull();
    await shredder.stop();

    // A restart resumes after the checkpoint: a key put again under the same id (a test of idempotence) stays.
    await putKey('t1');
    const again = new Projector(events, new KeyShreddingStore(keys), new ProjectionSet([keyShreddingProjection]), silent);
    await again.start();
    const later = await events.append(tokenStream(TENANT, 't2'), [deleted('t2')], 'any');
    expect(await again.waitFor(later.position, 5000)).toBe(true);
    expect(await keyOf('t2')).toBeNull();
    expect(await keyOf('t1')).not.toBeNull();
    await again.stop();
  });

  it('retries a failed shredding until the key store accepts it', async () => {
    await putKey('t3');
    const store = new FailingFirst(new KeyShreddingStore(keys), 1);
    const shredder = new Projector(events, store, new ProjectionSet([keyShreddingProjection]), silent);
    await shredder.start();
    const { position } = await events.append(tokenStream(TENANT, 't3'), [deleted('t3')], 'any');
    // The first commit fails; the projector retries from its checkpoint a second later.
    expect(await shredder.waitFor(position, 5000)).toBe(true);
    expect(store.commits).toBeGreaterThanOrEqual(2);
    expect(await keyOf('t3')).toBeNull();
    await shredder.stop();
  });

  it('stores its checkpoint with every batch that destroys a key, and batches without one at most once a second', async () => {
    await putKey('t4');
    const store = new KeyShreddingStore(keys);
    const at = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) });
    await store.commit([], at(1));
    await store.commit([], at(2));
    expect(await store.checkpoint()).toEqual(at(2));
    // The first idle batch was stored; the second, within the same second, only in memory.
    expect(await new KeyShreddingStore(keys).checkpoint()).toEqual(at(1));
    await store.commit([{ collection: 'shredded_keys', id: `${TENANT}_t4`, revision: 0n, doc: { tenant_id: TENANT, token_id: 't4' } }], at(3));
    expect(await keyOf('t4')).toBeNull();
    expect(await new KeyShreddingStore(keys).checkpoint()).toEqual(at(3));
  });
});
