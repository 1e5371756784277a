import type { ReactorFormulaEvent } from './reactor-formula.events';
import type { ReactorFormulaState } from './reactor-formula.state';

export const evolveReactorFormula = (state: ReactorFormulaState, event: ReactorFormulaEvent): ReactorFormulaState => {
  switch (event.type) {
    case 'ReactorFormulaCreated': {
      const { created_by, created_at, ...fields } = event.data;
      return { ...fields, created_by, created_at, modified_by: null, modified_at: null };
    }
    case 'ReactorFormulaUpdated': {
      // decide never updates a missing formula, so a stray update has nothing to apply to.
      if (state === null) return null;
      const { modified_by, modified_at, ...fields } = event.data;
      return { ...fields, created_by: state.created_by, created_at: state.created_at, modified_by, modified_at };
    }
    case 'ReactorFormulaDeleted':
      return null;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
};
