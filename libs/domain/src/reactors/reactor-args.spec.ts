import { DomainError, type FieldErrors } from '../shared/errors';
import type { RequestParameterElement } from '../reactor-formulas/reactor-formula.types';
import { checkReactorArgs } from './reactor-args';

const param = (name: string, type: RequestParameterElement['type'] = 'string', optional = false) => ({ name, type, optional });

/** A card charge: a nested required number, a required string, an optional boolean. */
const PARAMETERS = [param('card.number'), param('amount', 'number'), param('capture', 'boolean', true)];

const errorsOf = (args: unknown, parameters = PARAMETERS): FieldErrors => {
  try {
    checkReactorArgs(args, parameters);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors ?? {};
  }
  throw new Error('the args were accepted');
};

describe('checkReactorArgs accepts', () => {
  it.each<[string, unknown, ReturnType<typeof param>[]?]>([
    ['every parameter of its type', { card: { number: '4242424242424242' }, amount: 10, capture: true }],
    ['an optional parameter left out', { card: { number: '4242' }, amount: 0 }],
    ['undeclared properties of any kind, unchecked', { card: { number: '4242', cvc: 123 }, amount: 1, extra: [{ a: 1 }], note: null }],
    ['any payload when no parameter is declared', 'just text', []],
    ['no args when no parameter is declared', undefined, []],
    ['no args when every parameter is optional', undefined, [param('capture', 'boolean', true)]],
  ])('%s', (...[, args, parameters = PARAMETERS]) => {
    expect(() => checkReactorArgs(args, parameters)).not.toThrow();
  });
});

describe('checkReactorArgs rejects', () => {
  it.each<[string, unknown, FieldErrors, ReturnType<typeof param>[]?]>([
    ['a missing required parameter', { card: { number: '4242' } }, { 'args.amount': ['args.amount is required.'] }],
    // null is a value, of no declared type: only leaving a parameter out is what optional allows.
    ['a required parameter given as null', { card: { number: '4242' }, amount: null }, { 'args.amount': ['args.amount must be a number.'] }],
    ['an optional parameter given as null', { card: { number: '4242' }, amount: 1, capture: null }, { 'args.capture': ['args.capture must be a boolean.'] }],
    ['a nested optional parameter given as null', { card: { number: null } }, { 'args.card.number': ['args.card.number must be a string.'] }, [param('card.number', 'string', true)]],
    ['a nested parameter whose parent is missing', { amount: 1 }, { 'args.card.number': ['args.card.number is required.'] }],
    ['a nested parameter whose parent is not an object', { card: '4242', amount: 1 }, { 'args.card.number': ['args.card.number is required.'] }],
    ['a nested parameter whose parent is an array', { card: [{ number: '4242' }], amount: 1 }, { 'args.card.number': ['args.card.number is required.'] }],
    ['a parameter of the wrong type', { card: { number: 4242 }, amount: '10' }, {
      'args.card.number': ['args.card.number must be a string.'],
      'args.amount': ['args.amount must be a number.'],
    }],
    ['an optional parameter of the wrong type', { card: { number: '4242' }, amount: 1, capture: 'yes' }, { 'args.capture': ['args.capture must be a boolean.'] }],
    ['args that are not an object', ['4242'], { args: ['args must be an object.'] }],
    ['no args at all', undefined, { 'args.card.number': [expect.any(String)], 'args.amount': [expect.any(String)] }],
  ])('%s', (_title, args, expected, parameters = PARAMETERS) => {
    expect(errorsOf(args, parameters)).toEqual(expected);
  });

  it('reads only own properties: a parameter named like an Object method is missing when not sent', () => {
    expect(errorsOf({}, [param('constructor'), param('a.toString')])).toEqual({
      'args.constructor': ['args.constructor is required.'],
      'args.a.toString': ['args.a.toString is required.'],
    });
  });

  it('never quotes a value, nor the type of what was found (args may hold detokenized data)', () => {
    const secret = 'detokenized-4242424242424242';
    const error = (() => {
      try {
        checkReactorArgs({ card: { number: { secret } }, amount: secret }, PARAMETERS);
      } catch (e) {
        return e as DomainError;
      }
      throw new Error('accepted');
    })();
    const text = JSON.stringify({ message: error.message, errors: error.errors });
    expect(text).not.toContain(secret);
    expect(text).not.toMatch(/, not |object/);
  });
});
