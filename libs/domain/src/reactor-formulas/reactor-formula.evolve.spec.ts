import { aFormulaInput, APP, CREATED_AT, FORMULA_ID, formulaCreated, LATER, TENANT } from './reactor-formula.builders';
import type { ReactorFormulaEvent } from './reactor-formula.events';
import { evolveReactorFormula } from './reactor-formula.evolve';
import { initialReactorFormulaState } from './reactor-formula.state';

const replay = (events: ReactorFormulaEvent[]) => events.reduce(evolveReactorFormula, initialReactorFormulaState());

describe('evolveReactorFormula', () => {
  const input = aFormulaInput();
  const created = formulaCreated(input);
  const updated: ReactorFormulaEvent = {
    type: 'ReactorFormulaUpdated',
    data: {
      id: FORMULA_ID, tenant_id: TENANT, status: 'verified', ...input, name: 'Renamed',
      modified_by: 'b2b2b2b2-0000-4000-8000-000000000002', modified_at: LATER.toISOString(),
    },
  };

  it('starts with no formula', () => {
    expect(replay([])).toBeNull();
  });

  it('holds every field after creation, not yet modified', () => {
    expect(replay([created])).toEqual({
      id: FORMULA_ID, tenant_id: TENANT, status: 'verified', ...input,
      created_by: APP, created_at: CREATED_AT.toISOString(), modified_by: null, modified_at: null,
    });
  });

  it('takes the new fields on update and keeps who created it', () => {
    expect(replay([created, updated])).toMatchObject({
      name: 'Renamed', created_by: APP, created_at: CREATED_AT.toISOString(),
      modified_by: 'b2b2b2b2-0000-4000-8000-000000000002', modified_at: LATER.toISOString(),
    });
  });

  it('is gone after deletion', () => {
    const deleted: ReactorFormulaEvent = {
      type: 'ReactorFormulaDeleted',
      data: { id: FORMULA_ID, deleted_by: APP, deleted_at: LATER.toISOString() },
    };
    expect(replay([created, updated, deleted])).toBeNull();
  });
});
