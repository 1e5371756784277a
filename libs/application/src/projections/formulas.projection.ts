import { evolveReactorFormula, ReactorFormula, ReactorFormulaEvent } from '@vault/domain';
import type { Projection } from './projection';

export const formulasProjection: Projection<ReactorFormula> = {
  collection: 'formulas',
  eventTypes: ['ReactorFormulaCreated', 'ReactorFormulaUpdated', 'ReactorFormulaDeleted'],
  evolve: (doc, event) => evolveReactorFormula(doc, event as unknown as ReactorFormulaEvent),
};
