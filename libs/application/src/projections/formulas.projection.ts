import { evolveReactorFormula, REACTOR_FORMULA_EVENT_TYPES, ReactorFormula, ReactorFormulaEvent } from '@vault/domain';
import type { Projection } from './projection';

export const formulasProjection: Projection<ReactorFormula> = {
  collection: 'formulas',
  eventTypes: REACTOR_FORMULA_EVENT_TYPES,
  evolve: (doc, event) => evolveReactorFormula(doc, event as unknown as ReactorFormulaEvent),
};
