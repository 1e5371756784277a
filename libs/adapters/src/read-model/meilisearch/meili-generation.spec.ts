// The pure half of the generation protocol; the half that needs a server is test/contract/read-model-swap.meili.spec.ts.
import { samePosition, type LogPosition } from '@vault/application';
import {
  checkpointId,
  earlierCheckpoint,
  GENERATION_ID,
  GenerationGuard,
  readLiveState,
  shadowedDocuments,
  type StoredRevisions,
} from './meili-generation';

const at = (n: number): LogPosition => ({ commit: BigInt(n), prepare: BigInt(n) });

describe('checkpointId', () => {
  it('keeps the id of the first generation, so a read model from before markers keeps its checkpoint', () => {
    expect(checkpointId(null)).toBe('projector');
  });

  it('gives each rebuilt generation its own valid document id', () => {
    expect(checkpointId('rebuild_1732000000000_a1b2c3')).toBe('projector_rebuild_1732000000000_a1b2c3');
    expect(checkpointId('rebuild_1732000000000_a1b2c3')).toMatch(/^[A-Za-z0-9_-]{1,511}$/);
    expect(checkpointId('rebuild_1')).not.toBe(checkpointId('rebuild_2'));
  });
});

describe('readLiveState', () => {
  const marker = (generation: string) => ({ id: GENERATION_ID, generation });
  const checkpoint = (generation: string | null, n: number) => ({ id: checkpointId(generation), position: `${n}:${n}` });

  it.each([
    ['an empty checkpoints index', [], { generation: null, position: null }],
    ['a read model from before markers', [checkpoint(null, 7)], { generation: null, position: at(7) }],
    ['a rebuilt generation', [marker('g2'), checkpoint('g2', 40)], { generation: 'g2', position: at(40) }],
    ['a rebuilt generation nothing was committed to yet', [marker('g2')], { generation: 'g2', position: null }],
    [
      'a rebuilt generation with a checkpoint a split commit left under the old id',
      [checkpoint(null, 90), marker('g2'), checkpoint('g2', 40)],
      { generation: 'g2', position: at(40) },
    ],
    [
      'a leftover of another rebuilt generation',
      [marker('g3'), checkpoint('g2', 95), checkpoint('g3', 60)],
      { generation: 'g3', position: at(60) },
    ],
  ])('%s', (_case, documents, expected) => {
    expect(readLiveState(documents)).toEqual(expected);
  });
});

describe('GenerationGuard', () => {
  type Step = ['read' | 'commit', string | null];
  // Each step is a checkpoint read or a commit, with the generation live at that moment; `commits` says whether each
  // commit may write.
  it.each<[string, Step[], boolean[]]>([
    ['a projector that only ever sees one generation writes every batch', [['read', null], ['commit', null], ['read', null], ['commit', null]], [true, true]],
    ['a writer that never read the checkpoint writes to what is live', [['commit', 'g1'], ['commit', 'g1']], [true, true]],
    ['a swap between the projector’s checkpoint read and its commit stops the commit before it writes', [['read', 'g1'], ['commit', 'g2']], [false]],
    [
      'after a refusal the projector resumes from a fresh read and writes again',
      [['read', 'g1'], ['commit', 'g2'], ['read', 'g2'], ['commit', 'g2']],
      [false, true],
    ],
    [
      'a swap seen by the projector’s own read between batches costs nothing (it resumes from the rebuilt checkpoint)',
      [['read', 'g1'], ['commit', 'g1'], ['read', 'g2'], ['read', 'g2'], ['commit', 'g2']],
      [true, true],
    ],
    [
      'a refused writer that commits again without reading starts from what is live',
      [['read', 'g1'], ['commit', 'g2'], ['commit', 'g2']],
      [false, true],
    ],
    ['two swaps in a row are one change of generation like any other', [['read', 'g1'], ['commit', 'g3'], ['read', 'g3'], ['commit', 'g3']], [false, true]],
  ])('%s', (_case, steps, commits) => {
    const guard = new GenerationGuard();
    const allowed: boolean[] = [];
    for (const [kind, generation] of steps) {
      if (kind === 'read') guard.observe(generation);
      else allowed.push(guard.mayWrite(generation));
    }
    expect(allowed).toEqual(commits);
  });

  it('forgets on request (a commit that failed), so the next read sets the expectation again', () => {
    const guard = new GenerationGuard();
    guard.observe('g1');
    guard.forget();
    guard.observe('g2');
    expect(guard.mayWrite('g2')).toBe(true);
  });
});

describe('earlierCheckpoint', () => {
  it.each<[LogPosition | null, LogPosition | null, LogPosition | null]>([
    [at(5), at(9), at(5)],
    [at(9), at(5), at(5)],
    [at(5), at(5), at(5)],
    [null, at(5), null],
    [at(5), null, null],
    [null, null, null],
  ])('of %p and %p is %p', (a, b, expected) => {
    expect(earlierCheckpoint(a, b)).toEqual(expected);
  });

  it('compares prepare positions within one commit position', () => {
    expect(earlierCheckpoint({ commit: 10n, prepare: 8n }, { commit: 10n, prepare: 6n })).toEqual({ commit: 10n, prepare: 6n });
  });
});

describe('samePosition', () => {
  it.each<[LogPosition | null, LogPosition | null, boolean]>([
    [at(5), at(5), true],
    [at(5), at(6), false],
    [null, null, true],
    [null, at(5), false],
  ])('%p and %p: %p', (a, b, expected) => {
    expect(samePosition(a, b)).toBe(expected);
  });
});

describe('shadowedDocuments', () => {
  it.each<[string, StoredRevisions, boolean]>([
    ['a document only', { doc: 3n }, false],
    ['a tombstone only', { tombstone: 4n }, false],
    ['neither', {}, false],
    ['a document newer than its tombstone (deleted, then written again)', { doc: 5n, tombstone: 4n }, false],
    ['a document a newer tombstone deletes (written by a split commit)', { doc: 3n, tombstone: 4n }, true],
    ['a document as old as its tombstone (load() reports the tombstone)', { doc: 4n, tombstone: 4n }, true],
  ])('%s', (_case, stored, shadowed) => {
    expect(shadowedDocuments(new Map([['x', stored]]))).toEqual(shadowed ? ['x'] : []);
  });
});
