// applyBatch on the embedded read model: given events in the real log, a batch is applied and committed the way the
// projector does it (applyBatch, then commit at the batch's last position), and the read model is read back.
import { randomUUID } from 'node:crypto';
import { documentTable, SqliteEventStore, SqliteReadModel } from '@vault/adapters';
import type { RecordedEvent } from '../ports/event-store';
import { tempDataDir } from '@vault/test-support/embedded-stores';
import { applyBatch, ProjectionSet } from './apply-batch';
import type { Projection } from './projection';

/** Notes keyed by data.id: written (counting the writes), erased (the document goes). */
const notes: Projection<{ text: string; writes: number }> = {
  collection: 'notes',
  eventTypes: ['NoteWritten', 'NoteErased'],
  evolve: (doc, event) => {
    if (event.type === 'NoteErased') return null;
    return { text: (event.data as { text: string }).text, writes: (doc?.writes ?? 0) + 1 };
  },
};

/**
 * Labels, whose ids are unique only within a tenant (like tokens): keyed by tenant and id, its own documentId. Each
 * document still has one stream, whose revisions order its events.
 */
const labels: Projection<{ name: string }> = {
  collection: 'labels',
  eventTypes: ['LabelNamed'],
  documentId: (event) => `${(event.data as { tenant: string }).tenant}/${(event.data as { id: string }).id}`,
  evolve: (_doc, event) => ({ name: (event.data as { name: string }).name }),
};

type Given = Array<[stream: string, type: string, data: Record<string, unknown>]>;
type ReadModelDump = Record<'notes' | 'labels', Record<string, { revision: number; doc: unknown }>>;

const metadata = { tenant_id: 't1', actor: { type: 'system' as const, id: 'spec' }, timestamp: '2024-05-01T10:00:00.000Z', correlation_id: 'c' };

describe('applyBatch', () => {
  let data: ReturnType<typeof tempDataDir>;
  let events: SqliteEventStore;
  let model: SqliteReadModel;
  const projections = new ProjectionSet([notes, labels]);

  beforeEach(() => {
    data = tempDataDir('apply-batch');
    events = SqliteEventStore.open(data.dir);
    model = SqliteReadModel.open(data.dir, [documentTable('notes', {}), documentTable('labels', {})]);
  });
  afterEach(async () => {
    await model.close();
    await events.close();
    data.remove();
  });

  const record = async (given: Given): Promise<RecordedEvent[]> => {
    const from = await events.headPosition();
    for (const [stream, type, eventData] of given) await events.append(stream, [{ type, data: eventData, metadata }], 'any');
    return events.readAll(from, 1000);
  };
  /** One projector batch: the changes applyBatch derives, committed with the checkpoint at the batch's last event. */
  const project = async (batch: RecordedEvent[]) => {
    const changes = await applyBatch(batch, projections, model);
    await model.commit(changes, batch[batch.length - 1].position);
    return changes;
  };
  const dump = (): ReadModelDump => {
    const rows = (table: string) =>
      model.database.prepare(`SELECT id, revision, doc FROM ${table} ORDER BY id`).all() as Array<{ id: string; revision: number; doc: string }>;
    const byId = (table: string) => Object.fromEntries(rows(table).map((r) => [r.id, { revision: r.revision, doc: JSON.parse(r.doc) }]));
    return { notes: byId('notes'), labels: byId('labels') };
  };

  it.each<[string, Given, ReadModelDump]>([
    [
      'each event goes to the projection that owns its type',
      [
        ['note-a', 'NoteWritten', { id: 'a', text: 'hello' }],
        ['label-t1-a', 'LabelNamed', { tenant: 't1', id: 'a', name: 'red' }],
      ],
      { notes: { a: { revision: 0, doc: { text: 'hello', writes: 1 } } }, labels: { 't1/a': { revision: 0, doc: { name: 'red' } } } },
    ],
    [
      'events of an unknown type are skipped, even between known ones',
      [
        ['note-a', 'NoteWritten', { id: 'a', text: 'one' }],
        ['note-a', 'NoteArchived', { id: 'a' }],
        ['tenant-x', 'TenantCreated', { id: 'x', name: 'acme' }],
        ['note-a', 'NoteWritten', { id: 'a', text: 'two' }],
      ],
      { notes: { a: { revision: 2, doc: { text: 'two', writes: 2 } } }, labels: {} },
    ],
    [
      'several events on one document in one batch apply in log order',
      [
        ['note-a', 'NoteWritten', { id: 'a', text: 'one' }],
        ['note-b', 'NoteWritten', { id: 'b', text: 'bee' }],
        ['note-a', 'NoteWritten', { id: 'a', text: 'two' }],
        ['note-a', 'NoteWritten', { id: 'a', text: 'three' }],
      ],
      {
        notes: { a: { revision: 2, doc: { text: 'three', writes: 3 } }, b: { revision: 0, doc: { text: 'bee', writes: 1 } } },
        labels: {},
      },
    ],
    [
      'a document its projection evolves to null is deleted',
      [
        ['note-a', 'NoteWritten', { id: 'a', text: 'gone soon' }],
        ['note-b', 'NoteWritten', { id: 'b', text: 'stays' }],
        ['note-a', 'NoteErased', { id: 'a' }],
      ],
      { notes: { b: { revision: 0, doc: { text: 'stays', writes: 1 } } }, labels: {} },
    ],
    [
      "a projection's own document id keeps apart documents whose data.id is the same",
      [
        ['label-t1-a', 'LabelNamed', { tenant: 't1', id: 'a', name: 'red' }],
        ['label-t2-a', 'LabelNamed', { tenant: 't2', id: 'a', name: 'blue' }],
        ['label-t1-a', 'LabelNamed', { tenant: 't1', id: 'a', name: 'green' }],
      ],
      { notes: {}, labels: { 't1/a': { revision: 1, doc: { name: 'green' } }, 't2/a': { revision: 0, doc: { name: 'blue' } } } },
    ],
  ])('%s', async (_, given, expected) => {
    const batch = await record(given);
    await project(batch);
    expect(dump()).toEqual(expected);
    expect(await model.checkpoint()).toEqual(batch[batch.length - 1].position);
  });

  it('a batch of unknown types only changes no document, and its commit still moves the checkpoint past it', async () => {
    await project(await record([['note-a', 'NoteWritten', { id: 'a', text: 'kept' }]]));
    const before = dump();
    const batch = await record([
      ['tenant-x', 'TenantCreated', { id: 'x', name: 'acme' }],
      [`formula-${randomUUID()}`, 'ReactorFormulaCreated', { id: 'f' }],
    ]);
    expect(await project(batch)).toEqual([]);
    expect(dump()).toEqual(before);
    expect(await model.checkpoint()).toEqual(await events.headPosition());
  });

  it('a batch delivered again (a store that delivers at least once) changes nothing', async () => {
    const batch = await record([
      ['note-a', 'NoteWritten', { id: 'a', text: 'one' }],
      ['label-t1-a', 'LabelNamed', { tenant: 't1', id: 'a', name: 'red' }],
      ['note-a', 'NoteWritten', { id: 'a', text: 'two' }],
    ]);
    await project(batch);
    const once = dump();
    expect(await applyBatch(batch, projections, model)).toEqual([]);
    expect(await applyBatch(batch.slice(1), projections, model)).toEqual([]);
    expect(dump()).toEqual(once);
    expect(once.notes.a.doc).toEqual({ text: 'two', writes: 2 });
  });

  it('a batch overlapping the stored documents applies only the events they have not seen', async () => {
    const first = await record([
      ['note-a', 'NoteWritten', { id: 'a', text: 'one' }],
      ['note-a', 'NoteWritten', { id: 'a', text: 'two' }],
    ]);
    await project(first);
    const later = await record([['note-a', 'NoteWritten', { id: 'a', text: 'three' }]]);
    await project([...first, ...later]);
    expect(dump().notes).toEqual({ a: { revision: 2, doc: { text: 'three', writes: 3 } } });
  });
});
