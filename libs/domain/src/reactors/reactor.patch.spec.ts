import { DomainError } from '../shared/errors';
import { aFormula, anApplication, PRIVATE_APP_ID, reactorCreated, TENANT } from './reactor.builders';
import { evolveReactor } from './reactor.evolve';
import { mergeReactorPatch, reactorBodyOf, type ReactorBody } from './reactor.patch';
import { initialReactorState } from './reactor.state';
import { validateReactorUpdateInput } from './reactor.validate';

const current: ReactorBody = {
  name: 'Charge card',
  configuration: { api_key: 'sk_live_old', sandbox: true },
  application: { id: PRIVATE_APP_ID },
};

describe('mergeReactorPatch', () => {
  it.each<[string, unknown, Record<string, unknown>]>([
    ['an empty patch keeps everything', {}, { ...current }],
    ['a new name replaces the name', { name: 'Renamed' }, { ...current, name: 'Renamed' }],
    ['a configuration object merges into the configuration', { configuration: { api_key: 'sk_live_new' } }, { ...current, configuration: { api_key: 'sk_live_new', sandbox: true } }],
    ['null inside configuration removes that setting', { configuration: { sandbox: null } }, { ...current, configuration: { api_key: 'sk_live_old' } }],
    ['null application removes the application', { application: null }, { name: current.name, configuration: current.configuration }],
    ['null name removes it (validation then requires it)', { name: null }, { configuration: current.configuration, application: current.application }],
    ['a configuration that is not an object replaces it (validation then rejects it)', { configuration: 'x' }, { ...current, configuration: 'x' }],
    ['a formula and unknown properties are kept for validation to reject', { formula: { id: 'f' }, icon: 'x' }, { ...current, formula: { id: 'f' }, icon: 'x' }],
  ])('%s', (_title, patch, expected) => {
    expect(mergeReactorPatch(current, patch)).toEqual(expected);
  });

  it('gives an application to a reactor that had none', () => {
    expect(mergeReactorPatch({ ...current, application: null }, { application: { id: PRIVATE_APP_ID } })).toEqual(current);
  });

  it('refuses a patch that is not an object', () => {
    expect(() => mergeReactorPatch(current, ['name'])).toThrow(DomainError);
  });

  it('keeps a patched setting named __proto__ as an own property', () => {
    const merged = mergeReactorPatch(current, JSON.parse('{"configuration":{"__proto__":"v"}}'));
    expect(Object.hasOwn(merged.configuration as object, '__proto__')).toBe(true);
  });

  it('restates a recorded reactor, so a patch validates exactly like a PUT', () => {
    const state = evolveReactor(initialReactorState(), reactorCreated({ application_id: PRIVATE_APP_ID }));
    if (state.status !== 'active') throw new Error('no reactor');
    const body = mergeReactorPatch(reactorBodyOf(state.reactor, current.configuration), { configuration: { sandbox: false } });
    expect(validateReactorUpdateInput(body, aFormula(), anApplication(), TENANT)).toEqual({
      name: 'Charge card',
      configuration: { api_key: 'sk_live_old', sandbox: false },
      configuration_shape: [{ name: 'api_key', type: 'string' }, { name: 'sandbox', type: 'boolean' }],
      application_id: PRIVATE_APP_ID,
    });
  });
});
