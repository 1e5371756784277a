import { DomainError } from '../shared/errors';
import {
  assertFormulaChangeBreaksNoReactor,
  formulaChangeConflict,
  MAX_NAMED_REACTORS,
  reactorsBrokenByFormulaChange,
  type FormulaChange,
  type ReactorOfFormula,
} from './reactor-formula-compat';

const apiKey = { name: 'api_key', type: 'string' } as const;
const sandbox = { name: 'sandbox', type: 'boolean' } as const;

const reactor = (n: number, configuration_shape: ReactorOfFormula['configuration_shape'] = [apiKey, sandbox]): ReactorOfFormula => ({
  id: `e0e0e0e0-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `Reactor ${n}`,
  configuration_shape,
});

const current = [reactor(1), reactor(2)];

describe('reactorsBrokenByFormulaChange', () => {
  it.each<[string, FormulaChange, number[]]>([
    ['the same contract breaks none', [apiKey, sandbox], []],
    ['a reordered contract breaks none', [sandbox, apiKey], []],
    ['a new description breaks none (only names and types count)', [{ ...apiKey, description: 'new' } as typeof apiKey, sandbox], []],
    ['an added setting breaks every reactor: none holds a value for it', [apiKey, sandbox, { name: 'region', type: 'string' }], [1, 2]],
    ['a removed setting breaks every reactor: each holds a value no longer declared', [apiKey], [1, 2]],
    ['a retyped setting breaks every reactor', [apiKey, { name: 'sandbox', type: 'string' }], [1, 2]],
    ['a renamed setting breaks every reactor', [apiKey, { name: 'test_mode', type: 'boolean' }], [1, 2]],
    ['deleting the formula breaks every reactor', 'deleted', [1, 2]],
  ])('%s', (_title, change, broken) => {
    expect(reactorsBrokenByFormulaChange(change, current).map(({ name }) => name)).toEqual(broken.map((n) => `Reactor ${n}`));
  });

  it('breaks only the reactors whose shape differs (one recorded before an earlier compatible change)', () => {
    const older = reactor(3, [apiKey]);
    expect(reactorsBrokenByFormulaChange([apiKey, sandbox], [...current, older])).toEqual([older]);
  });

  it('breaks nothing when the formula has no reactors', () => {
    expect(reactorsBrokenByFormulaChange('deleted', [])).toEqual([]);
  });
});

describe('assertFormulaChangeBreaksNoReactor', () => {
  const conflictOf = (change: FormulaChange, reactors: ReactorOfFormula[]): DomainError => {
    try {
      assertFormulaChangeBreaksNoReactor(change, reactors);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return error as DomainError;
    }
    throw new Error('the change was allowed');
  };

  it('allows a change that breaks no reactor', () => {
    expect(() => assertFormulaChangeBreaksNoReactor([sandbox, apiKey], current)).not.toThrow();
  });

  it('answers a delete of a formula with reactors with a 409 naming them', () => {
    const error = conflictOf('deleted', current);
    expect(error.kind).toBe('conflict');
    expect(error.message).toContain('This formula has 2 reactors: Reactor 1 (e0e0e0e0-0000-4000-8000-000000000001), Reactor 2');
    expect(error.errors).toEqual({ reactors: current.map((r) => `${r.name} (${r.id})`) });
  });

  it('answers an incompatible update with a 409 naming only the reactors it breaks', () => {
    const error = conflictOf([apiKey], [reactor(1), reactor(2, [apiKey])]);
    expect(error.kind).toBe('conflict');
    expect(error.message).toContain('would break 1 reactor: Reactor 1 (');
    expect(error.errors).toEqual({ reactors: [`Reactor 1 (${reactor(1).id})`] });
  });

  it('names a bounded number of reactors and counts the rest', () => {
    const many = Array.from({ length: MAX_NAMED_REACTORS + 20 }, (_, i) => reactor(i));
    const error = formulaChangeConflict('deleted', many);
    expect(error.message).toContain(`This formula has ${many.length} reactors`);
    expect(error.message).toContain(`and ${many.length - 5} more`);
    expect(error.errors!.reactors).toHaveLength(MAX_NAMED_REACTORS + 1);
    expect(error.errors!.reactors.at(-1)).toBe('and 20 more');
  });
});
