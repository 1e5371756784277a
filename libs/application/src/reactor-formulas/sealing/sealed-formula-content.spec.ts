// The event log keeps a private formula's name, description and code only sealed under a key its tenant's key wraps:
// the log as written holds none of them, every reader of the decorated store sees them, and once the tenant is deleted
// its formula events still read (as a rebuild and a lagging projector read them), with nothing of the formula left.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AesGcmTokenCrypto, SqliteEventStore, SqliteKeyStore } from '@vault/adapters';
import { DomainError, formulaStream, reactorFormulaDecider, type EventMetadata, type ReactorFormulaEvent, type ValidFormulaInput } from '@vault/domain';
import { aFormulaInput, formulaCreated } from '@vault/domain/reactor-formulas/reactor-formula.builders';
import type { EventToAppend, RecordedEvent } from '../../ports/event-store';
import { formulaKeyId, SEALED_FORMULA_FIELD, SealedFormulaContentEventStore } from './sealed-formula-content';

describe('SealedFormulaContentEventStore', () => {
  let dir: string;
  let raw: SqliteEventStore;
  let keys: SqliteKeyStore;
  let crypto: AesGcmTokenCrypto;
  let events: SealedFormulaContentEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sealed-formula-'));
    raw = SqliteEventStore.open(dir);
    keys = SqliteKeyStore.open(dir);
    crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
    events = new SealedFormulaContentEventStore(raw, crypto);
  });
  afterEach(async () => {
    await events.close();
    keys.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const metadata = (tenantId: string | null): EventMetadata =>
    ({ tenant_id: tenantId, timestamp: new Date().toISOString(), correlation_id: randomUUID(), causation_id: null, actor: { type: 'application', id: randomUUID() } }) as unknown as EventMetadata;

  const secretInput = (overrides: Partial<ValidFormulaInput> = {}) =>
    aFormulaInput({
      name: `Gateway ${randomUUID()}`,
      description: `Calls the upstream ${randomUUID()}`,
      code: `const KEY = 'sk_live_${randomUUID()}'; module.exports = async () => ({ raw: { k: KEY } });`,
      ...overrides,
    });

  /** A formula event as the use cases append it, the formula in plaintext. */
  const created = (tenantId: string | null, id = randomUUID(), input = secretInput()): EventToAppend => {
    const event = formulaCreated({ ...input, type: tenantId === null ? 'official' : 'private' }, { tenantId }, id);
    return { ...event, metadata: metadata(tenantId) };
  };
  const updated = (from: EventToAppend, input = secretInput()): EventToAppend => {
    const { created_by, created_at: _at, ...fields } = from.data as ReactorFormulaEvent['data'] & { created_by: string; created_at: string };
    return { type: 'ReactorFormulaUpdated', data: { ...fields, ...input, modified_by: created_by, modified_at: new Date().toISOString() }, metadata: from.metadata };
  };
  const streamOf = (event: EventToAppend) => formulaStream((event.data as { id: string }).id);
  const dataOf = (event: RecordedEvent | EventToAppend) => event.data as Record<string, unknown>;

  it('writes neither the name, the description nor the code of a private formula in the log, and every read gives them back', async () => {
    const first = created(randomUUID());
    const second = updated(first);
    await events.append(streamOf(first), [first], 'no_stream');
    await events.appendMany([{ streamId: streamOf(first), events: [second], expected: 0n }]);

    const written = await raw.readStream(streamOf(first));
    const text = JSON.stringify(written.map(dataOf));
    for (const event of [first, second]) {
      for (const field of ['name', 'description', 'code']) expect(text).not.toContain(dataOf(event)[field]);
    }
    for (const event of written) {
      for (const field of ['name', 'description', 'code']) expect(dataOf(event)).not.toHaveProperty(field);
      expect(dataOf(event)[SEALED_FORMULA_FIELD]).toEqual(expect.objectContaining({ alg: 'AES-256-GCM', key_ref: formulaKeyId(dataOf(first).id as string) }));
      // What says whose formula it is and what kind stays readable.
      expect(dataOf(event)).toMatchObject({ id: dataOf(first).id, tenant_id: dataOf(first).tenant_id, type: 'private', status: 'verified' });
    }

    const expected = [first.data, second.data];
    expect((await new SealedFormulaContentEventStore(raw, crypto).readAll(null, 10)).map(dataOf)).toEqual(expected);
    expect((await events.readStream(streamOf(first))).map(dataOf)).toEqual(expected);
    const delivered: RecordedEvent[] = [];
    const subscription = events.subscribe({ after: null, onEvents: async (batch) => void delivered.push(...batch), onCaughtUp: () => undefined });
    while (delivered.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.close();
    expect(delivered.map(dataOf)).toEqual(expected);
  });

  it("opens a deleted tenant's formula events with nothing of the formula, and other tenants' as they were", async () => {
    const [gone, kept] = [randomUUID(), randomUUID()];
    const doomed = created(gone);
    const change = updated(doomed);
    const other = created(kept);
    await events.append(streamOf(doomed), [doomed], 'no_stream');
    await events.append(streamOf(doomed), [change], 0n);
    await events.append(streamOf(other), [other], 'no_stream');
    crypto.destroyTenantKey(gone);

    // Read as a rebuild or another process reads it.
    const read = await new SealedFormulaContentEventStore(raw, crypto).readAll(null, 10);
    const shredded = { name: '', description: null, code: '' };
    expect(read.map(dataOf)).toEqual([{ ...dataOf(doomed), ...shredded }, { ...dataOf(change), ...shredded }, other.data]);
    // Folding the stream (what a decision does) gives a formula with nothing of its own.
    const state = (await events.readStream(streamOf(doomed))).reduce(
      (s, e) => reactorFormulaDecider.evolve(s, { type: e.type, data: e.data } as ReactorFormulaEvent),
      reactorFormulaDecider.initialState(),
    );
    expect(state).toMatchObject({ id: dataOf(doomed).id, tenant_id: gone, ...shredded });
  });

  it("refuses to seal for a deleted tenant (401), creates no key and appends nothing", async () => {
    const tenantId = randomUUID();
    crypto.destroyTenantKey(tenantId);
    const event = created(tenantId);
    const error = await events.append(streamOf(event), [event], 'no_stream').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('unauthenticated');
    expect(await keys.get(tenantId, formulaKeyId(dataOf(event).id as string))).toBeNull();
    expect(await raw.readAll(null, 10)).toEqual([]);
  });

  it('passes official formulas, deletions and private formula events written before the sealing through unchanged', async () => {
    const official = created(null);
    await events.append(streamOf(official), [official], 'no_stream');
    const old = created(randomUUID());
    await raw.append(streamOf(old), [old], 'no_stream');
    const deleted = { type: 'ReactorFormulaDeleted', data: { id: dataOf(old).id, deleted_by: randomUUID(), deleted_at: new Date().toISOString() }, metadata: old.metadata };
    await events.append(streamOf(old), [deleted], 0n);

    expect((await raw.readAll(null, 10)).map(dataOf)).toEqual([official.data, old.data, deleted.data]);
    expect((await events.readAll(null, 10)).map(dataOf)).toEqual([official.data, old.data, deleted.data]);
  });
});
