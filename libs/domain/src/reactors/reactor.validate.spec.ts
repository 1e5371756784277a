import { DomainError, type FieldErrors } from '../shared/errors';
import { aFormula, anApplication, FORMULA_ID, OTHER_TENANT, PRIVATE_APP_ID, TENANT } from './reactor.builders';
import type { ReactorApplicationSnapshot, ReactorFormulaSnapshot } from './reactor.types';
import {
  MAX_CONFIGURATION_VALUE_LENGTH,
  reactorReferences,
  validateReactorInput,
  validateReactorUpdateInput,
} from './reactor.validate';

const SECRET = 'sk_live_5ecret';

/** A valid create body as a client sends it. */
const aBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Charge card',
  formula: { id: FORMULA_ID },
  configuration: { api_key: SECRET, sandbox: true },
  ...overrides,
});

type Snapshots = { formula?: ReactorFormulaSnapshot | null; application?: ReactorApplicationSnapshot | null };

const errorsOf = (validate: () => unknown): FieldErrors => {
  try {
    validate();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors ?? {};
  }
  throw new Error('the body was accepted');
};

const createErrors = (body: unknown, { formula = aFormula(), application = anApplication() }: Snapshots = {}) =>
  errorsOf(() => validateReactorInput(body, formula, application, TENANT));
const updateErrors = (body: unknown, { formula = aFormula(), application = anApplication() }: Snapshots = {}) =>
  errorsOf(() => validateReactorUpdateInput(body, formula, application, TENANT));

describe('validateReactorInput accepts', () => {
  it.each<[string, Record<string, unknown>, Snapshots?]>([
    ['a minimal body', aBody()],
    ['a name of 200 emoji (code points are counted)', aBody({ name: '🔐'.repeat(200) })],
    ['an official verified formula', aBody(), { formula: aFormula({ type: 'official', tenant_id: null }) }],
    ['a null application', aBody({ application: null })],
    ['a private application of the tenant', aBody({ application: { id: PRIVATE_APP_ID } })],
    ['an upper-case formula id', aBody({ formula: { id: FORMULA_ID.toUpperCase() } })],
    ['an empty configuration for a formula that declares none', aBody({ configuration: {} }), { formula: aFormula({ configuration: [] }) }],
    ['numbers, including zero and negatives', aBody({ configuration: { limit: -1.5 } }), { formula: aFormula({ configuration: [{ name: 'limit', type: 'number' }] }) }],
    [`a string setting of ${MAX_CONFIGURATION_VALUE_LENGTH} characters`, aBody({ configuration: { api_key: 'k'.repeat(MAX_CONFIGURATION_VALUE_LENGTH), sandbox: false } })],
  ])('%s', (_title, body, snapshots = {}) => {
    const { formula = aFormula(), application = anApplication() } = snapshots;
    expect(() => validateReactorInput(body, formula, application, TENANT)).not.toThrow();
  });

  it('returns the plaintext configuration in the formula\'s order, its shape, and lower-case ids', () => {
    const body = aBody({
      formula: { id: FORMULA_ID.toUpperCase() },
      configuration: { sandbox: false, api_key: SECRET },
      application: { id: PRIVATE_APP_ID.toUpperCase() },
    });
    const valid = validateReactorInput(body, aFormula(), anApplication(), TENANT);
    expect(valid).toEqual({
      name: 'Charge card',
      formula_id: FORMULA_ID,
      configuration: { api_key: SECRET, sandbox: false },
      configuration_shape: [{ name: 'api_key', type: 'string' }, { name: 'sandbox', type: 'boolean' }],
      application_id: PRIVATE_APP_ID,
    });
    expect(Object.keys(valid.configuration)).toEqual(['api_key', 'sandbox']);
  });

  it('keeps a setting named __proto__ as an own property', () => {
    const formula = aFormula({ configuration: [{ name: '__proto__', type: 'string' }] });
    const body = JSON.parse(`{"name":"n","formula":{"id":"${FORMULA_ID}"},"configuration":{"__proto__":"v"}}`);
    const { configuration } = validateReactorInput(body, formula, null, TENANT);
    expect(Object.hasOwn(configuration, '__proto__')).toBe(true);
    expect(JSON.stringify(configuration)).toBe('{"__proto__":"v"}');
  });
});

describe('validateReactorInput rejects', () => {
  // The test takes rest parameters: a fourth named one would make Jest pass `done` to the rows that have three.
  it.each<[string, unknown, FieldErrors, Snapshots?]>([
    ['a body that is not an object', [], { body: ['The request body must be a JSON object, not an array.'] }],
    ['a missing name', aBody({ name: undefined }), { name: ['name is required.'] }],
    ['a blank name', aBody({ name: '  \t' }), { name: ['name must not be empty.'] }],
    ['a name of 201 characters', aBody({ name: 'n'.repeat(201) }), { name: ['name must be at most 200 characters, not 201.'] }],
    ['an unknown property', aBody({ status: 'on' }), { status: ['status is not an allowed property.'] }],
    ['a missing formula', aBody({ formula: undefined }), { formula: ['formula is required.'] }],
    ['a formula given as a string', aBody({ formula: FORMULA_ID }), { formula: [expect.stringContaining('must be an object such as { "id"')] }],
    ['a formula without id', aBody({ formula: {} }), { 'formula.id': ['formula.id is required.'] }],
    ['a formula id that is not a UUID', aBody({ formula: { id: 'abc' } }), { 'formula.id': ['formula.id must be a UUID.'] }],
    ['an unknown property in formula', aBody({ formula: { id: FORMULA_ID, name: 'x' } }), { 'formula.name': ['formula.name is not an allowed property.'] }],
    ['a formula that does not exist', aBody(), { 'formula.id': ['formula.id names no reactor formula available to this tenant.'] }, { formula: null }],
    ['another tenant\'s private formula', aBody(), { 'formula.id': ['formula.id names no reactor formula available to this tenant.'] }, { formula: aFormula({ tenant_id: OTHER_TENANT }) }],
    ['a coming-soon formula', aBody(), { 'formula.id': [expect.stringContaining('coming soon')] }, { formula: aFormula({ type: 'official', tenant_id: null, status: 'coming_soon' }) }],
    ['a missing configuration', aBody({ configuration: undefined }), { configuration: [expect.stringContaining('configuration is required')] }],
    ['a configuration that is an array', aBody({ configuration: [] }), { configuration: [expect.stringContaining('not an array')] }],
    ['a missing setting', aBody({ configuration: { api_key: SECRET } }), { 'configuration.sandbox': ['configuration.sandbox is required: the formula declares it as a boolean.'] }],
    ['a setting of the wrong type', aBody({ configuration: { api_key: 42, sandbox: 'yes' } }), {
      'configuration.api_key': ['configuration.api_key must be a string, not a number.'],
      'configuration.sandbox': ['configuration.sandbox must be a boolean, not a string.'],
    }],
    ['a null setting', aBody({ configuration: { api_key: null, sandbox: true } }), { 'configuration.api_key': ['configuration.api_key must be a string, not null.'] }],
    ['a nested setting', aBody({ configuration: { api_key: { value: SECRET }, sandbox: true } }), { 'configuration.api_key': ['configuration.api_key must be a string, not an object.'] }],
    ['an undeclared setting', aBody({ configuration: { api_key: SECRET, sandbox: true, region: 'eu' } }), { 'configuration.region': ['configuration.region is not a setting the formula declares.'] }],
    ['an undeclared setting named constructor', aBody({ configuration: { api_key: SECRET, sandbox: true, constructor: 1 } }), { 'configuration.constructor': [expect.stringContaining('not a setting')] }],
    ['a string setting that is too long', aBody({ configuration: { api_key: 'k'.repeat(MAX_CONFIGURATION_VALUE_LENGTH + 1), sandbox: true } }), { 'configuration.api_key': [`configuration.api_key must be at most ${MAX_CONFIGURATION_VALUE_LENGTH} characters.`] }],
    ['more settings than any formula declares', aBody({ configuration: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`s${i}`, 'v'])) }), { configuration: ['configuration must hold at most 100 settings, not 101.'] }],
    ['an application given as a string', aBody({ application: PRIVATE_APP_ID }), { application: [expect.stringContaining('must be an object')] }],
    ['an application id that is not a UUID', aBody({ application: { id: 7 } }), { 'application.id': ['application.id must be a UUID.'] }],
    ['an application that does not exist', aBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id names no application of this tenant.'] }, { application: null }],
    ['a deleted application', aBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id names no application of this tenant.'] }, { application: anApplication({ deleted: true }) }],
    ['another tenant\'s application', aBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id names no application of this tenant.'] }, { application: anApplication({ tenant_id: OTHER_TENANT }) }],
    ['a management application', aBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id must name a private application, not a management one.'] }, { application: anApplication({ type: 'management' }) }],
  ])('%s', (...[, body, expected, snapshots]) => {
    expect(createErrors(body, snapshots)).toEqual(expected);
  });

  it('names every bad field in one error', () => {
    const body = aBody({ name: '', configuration: { sandbox: 1, extra: true }, application: { id: 'nope' }, icon: 'x' });
    expect(Object.keys(createErrors(body, { formula: aFormula({ status: 'coming_soon' }) })).sort()).toEqual([
      'application.id', 'configuration.api_key', 'configuration.extra', 'configuration.sandbox', 'formula.id', 'icon', 'name',
    ]);
  });

  it('checks only the form of the configuration when the formula is unavailable', () => {
    expect(createErrors(aBody({ configuration: { anything: 1 } }), { formula: null })).toEqual({
      'formula.id': [expect.any(String)],
    });
  });

  it('cuts a very long undeclared name in its field path and message', () => {
    const name = 'x'.repeat(5000);
    const errors = createErrors(aBody({ configuration: { api_key: SECRET, sandbox: true, [name]: 1 } }));
    const [path] = Object.keys(errors);
    expect(path).toBe(`configuration.${'x'.repeat(200)}…`);
    expect(errors[path][0].length).toBeLessThan(300);
  });

  it('fails loudly when the handler passed the snapshot of another formula or application', () => {
    expect(() => validateReactorInput(aBody(), aFormula({ id: PRIVATE_APP_ID }), null, TENANT)).toThrow('formula snapshot');
    const body = aBody({ application: { id: PRIVATE_APP_ID } });
    expect(() => validateReactorInput(body, aFormula(), anApplication({ id: FORMULA_ID }), TENANT)).toThrow('application snapshot');
  });
});

describe('validateReactorUpdateInput', () => {
  const { formula: _formula, ...putBody } = aBody();

  it('accepts the create body without formula and keeps the formula out of the result', () => {
    expect(validateReactorUpdateInput(putBody, aFormula(), null, TENANT)).toEqual({
      name: 'Charge card',
      configuration: { api_key: SECRET, sandbox: true },
      configuration_shape: [{ name: 'api_key', type: 'string' }, { name: 'sandbox', type: 'boolean' }],
      application_id: null,
    });
  });

  it('accepts a reactor whose formula has become coming soon', () => {
    expect(() => validateReactorUpdateInput(putBody, aFormula({ status: 'coming_soon' }), null, TENANT)).not.toThrow();
  });

  it('refuses a formula in the body: a reactor keeps its formula', () => {
    expect(updateErrors(aBody())).toEqual({ formula: [expect.stringContaining('A reactor keeps its formula')] });
  });

  it('checks the configuration against the formula\'s current contract', () => {
    const formula = aFormula({ configuration: [{ name: 'api_key', type: 'string' }, { name: 'region', type: 'string' }] });
    expect(updateErrors(putBody, { formula })).toEqual({
      'configuration.region': [expect.stringContaining('is required')],
      'configuration.sandbox': [expect.stringContaining('not a setting the formula declares')],
    });
  });

  it('refuses an application that is not a private one of the tenant', () => {
    expect(updateErrors({ ...putBody, application: { id: PRIVATE_APP_ID } }, { application: anApplication({ type: 'public' }) })).toEqual({
      'application.id': [expect.stringContaining('private application')],
    });
  });

  it('is a conflict when the reactor\'s formula is gone', () => {
    expect(() => validateReactorUpdateInput(putBody, null, null, TENANT)).toThrow(
      expect.objectContaining({ kind: 'conflict' }),
    );
  });
});

describe('reactorReferences', () => {
  it.each<[string, unknown, { formulaId: string | null; applicationId: string | null }]>([
    ['both ids, lower-cased', aBody({ formula: { id: FORMULA_ID.toUpperCase() }, application: { id: PRIVATE_APP_ID } }), { formulaId: FORMULA_ID, applicationId: PRIVATE_APP_ID }],
    ['no application', aBody(), { formulaId: FORMULA_ID, applicationId: null }],
    ['ids that are not UUIDs', aBody({ formula: { id: 'x' }, application: { id: 3 } }), { formulaId: null, applicationId: null }],
    ['references that are not objects', aBody({ formula: FORMULA_ID, application: [PRIVATE_APP_ID] }), { formulaId: null, applicationId: null }],
    ['a body that is not an object', 'text', { formulaId: null, applicationId: null }],
  ])('%s', (_title, body, expected) => {
    expect(reactorReferences(body)).toEqual(expected);
  });
});
