import { aContent, APP, CREATED_AT, FORMULA_ID, LATER, REACTOR_ID, reactorCreated, TENANT } from './reactor.builders';
import type { ReactorEvent } from './reactor.events';
import { evolveReactor } from './reactor.evolve';
import { initialReactorState, visibleReactor } from './reactor.state';

const replay = (events: ReactorEvent[]) => events.reduce(evolveReactor, initialReactorState());

describe('evolveReactor', () => {
  const created = reactorCreated();
  const updated: ReactorEvent = {
    type: 'ReactorUpdated',
    data: {
      id: REACTOR_ID, tenant_id: TENANT, formula_id: FORMULA_ID, ...aContent({ name: 'Renamed' }),
      modified_by: 'b2b2b2b2-0000-4000-8000-000000000002', modified_at: LATER.toISOString(),
    },
  };
  const deleted: ReactorEvent = {
    type: 'ReactorDeleted',
    data: { id: REACTOR_ID, tenant_id: TENANT, formula_id: FORMULA_ID, deleted_by: APP, deleted_at: LATER.toISOString() },
  };

  it('starts with no reactor', () => {
    expect(replay([])).toEqual({ status: 'absent' });
  });

  it('holds every field after creation, not yet modified', () => {
    expect(replay([created])).toEqual({
      status: 'active',
      reactor: {
        id: REACTOR_ID, tenant_id: TENANT, formula_id: FORMULA_ID, ...aContent(),
        created_by: APP, created_at: CREATED_AT.toISOString(), modified_by: null, modified_at: null,
      },
    });
  });

  it('takes the new fields on update and keeps who created it', () => {
    expect(replay([created, updated])).toMatchObject({
      status: 'active',
      reactor: {
        name: 'Renamed', created_by: APP, created_at: CREATED_AT.toISOString(),
        modified_by: 'b2b2b2b2-0000-4000-8000-000000000002', modified_at: LATER.toISOString(),
      },
    });
  });

  it('remembers a deleted id, and a stray update after it changes nothing', () => {
    const gone = { status: 'deleted', id: REACTOR_ID, tenant_id: TENANT };
    expect(replay([created, deleted])).toEqual(gone);
    expect(replay([created, deleted, updated])).toEqual(gone);
  });

  it('shows a reactor only to its own tenant, and only while it exists', () => {
    expect(visibleReactor(replay([created]), TENANT)).toMatchObject({ id: REACTOR_ID });
    expect(visibleReactor(replay([created]), '4eac7000-0000-4000-8000-000000000002')).toBeNull();
    expect(visibleReactor(replay([created, deleted]), TENANT)).toBeNull();
  });
});
