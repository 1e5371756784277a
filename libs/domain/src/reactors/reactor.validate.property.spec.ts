// No validation message or field path ever holds a configuration value, whatever the body and the formula's contract.
import fc from 'fast-check';
import { DomainError } from '../shared/errors';
import { FORMULA_VALUE_TYPES } from '../reactor-formulas/reactor-formula.types';
import { aFormula, anApplication, FORMULA_ID, PRIVATE_APP_ID, TENANT } from './reactor.builders';
import { mergeReactorPatch } from './reactor.patch';
import { validateReactorInput, validateReactorUpdateInput } from './reactor.validate';

/** Every secret carries this marker, which no setting name, message or path can otherwise contain. */
const MARK = 'SECRET§';

const secret = fc.string({ maxLength: 30 }).map((s) => `${MARK}${s}`);
const value = fc.oneof(
  secret,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(secret, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), secret, { maxKeys: 3 }),
);
const settingName = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '_', '1'), minLength: 1, maxLength: 4 });
const contract = fc.uniqueArray(
  fc.record({ name: settingName, type: fc.constantFrom(...FORMULA_VALUE_TYPES) }),
  { selector: ({ name }) => name, maxLength: 6 },
);
const configuration = fc.oneof(fc.dictionary(settingName, value, { maxKeys: 8 }), value);

const textOf = (run: () => unknown): string => {
  try {
    run();
    return '';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return JSON.stringify({ message: error.message, errors: error.errors });
  }
};

describe('reactor validation never reveals a configuration value', () => {
  it('in a create', () => {
    fc.assert(
      fc.property(contract, configuration, (declared, config) => {
        const body = { name: 'n', formula: { id: FORMULA_ID }, configuration: config, application: { id: PRIVATE_APP_ID } };
        const text = textOf(() => validateReactorInput(body, aFormula({ configuration: declared }), anApplication(), TENANT));
        expect(text).not.toContain(MARK);
      }),
      { numRuns: 1000 },
    );
  });

  it('in a merge-patched update', () => {
    fc.assert(
      fc.property(contract, fc.dictionary(settingName, fc.oneof(secret, fc.boolean())), configuration, (declared, stored, patch) => {
        const current = { name: 'n', configuration: stored, application: null };
        const body = mergeReactorPatch(current, { configuration: patch });
        const text = textOf(() => validateReactorUpdateInput(body, aFormula({ configuration: declared }), null, TENANT));
        expect(text).not.toContain(MARK);
      }),
      { numRuns: 1000 },
    );
  });

  it('and the check finds leaks: the marker does reach a field path when a secret is sent as a setting name', () => {
    const body = { name: 'n', formula: { id: FORMULA_ID }, configuration: { [`${MARK}x`]: 1 } };
    expect(textOf(() => validateReactorInput(body, aFormula({ configuration: [] }), null, TENANT))).toContain(MARK);
  });
});
