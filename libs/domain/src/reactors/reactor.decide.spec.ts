import { givenWhenThenFor } from '@vault/test-support/given-when-then';
import {
  aContent,
  aFormula,
  anApp,
  anApplication,
  APP,
  CREATED_AT,
  FORMULA_ID,
  LATER,
  OTHER_TENANT,
  PRIVATE_APP_ID,
  REACTOR_ID,
  reactorCreated,
  TENANT,
} from './reactor.builders';
import { reactorDecider, type ReactorCommand } from './reactor.decide';
import type { ReactorEvent } from './reactor.events';
import type { ReactorApplicationSnapshot, ReactorContent, ReactorFormulaSnapshot } from './reactor.types';

const { given } = givenWhenThenFor(reactorDecider, anApp());

const content = aContent();
const withApp = aContent({ application_id: PRIVATE_APP_ID });

const create = (
  c: ReactorContent = content,
  formula: ReactorFormulaSnapshot | null = aFormula(),
  application: ReactorApplicationSnapshot | null = null,
): ReactorCommand => ({ type: 'CreateReactor', data: { id: REACTOR_ID, formula_id: FORMULA_ID, content: c, formula, application } });
const update = (
  c: ReactorContent = aContent({ name: 'Charge card (live)' }),
  formula: ReactorFormulaSnapshot | null = aFormula(),
  application: ReactorApplicationSnapshot | null = null,
): ReactorCommand => ({ type: 'UpdateReactor', data: { id: REACTOR_ID, content: c, formula, application } });
const remove = (): ReactorCommand => ({ type: 'DeleteReactor', data: { id: REACTOR_ID } });

const created = reactorCreated();
const othersReactor = reactorCreated({}, { tenantId: OTHER_TENANT });
const deleted: ReactorEvent = {
  type: 'ReactorDeleted',
  data: { id: REACTOR_ID, tenant_id: TENANT, formula_id: FORMULA_ID, deleted_by: APP, deleted_at: CREATED_AT.toISOString() },
};

const formulaRules: [string, ReactorFormulaSnapshot | null, string][] = [
  ['a missing or deleted formula', null, 'no reactor formula available'],
  ['another tenant\'s private formula', aFormula({ tenant_id: OTHER_TENANT }), 'no reactor formula available'],
  ['a coming-soon formula', aFormula({ type: 'official', tenant_id: null, status: 'coming_soon' }), 'coming soon'],
];

const shapeRules: [string, ReactorContent['configuration_shape']][] = [
  ['lacks a declared setting', [{ name: 'api_key', type: 'string' }]],
  ['holds an undeclared setting', [...content.configuration_shape, { name: 'region', type: 'string' }]],
  ['gives a setting another type', [{ name: 'api_key', type: 'string' }, { name: 'sandbox', type: 'string' }]],
];

const applicationRules: [string, ReactorApplicationSnapshot | null, string][] = [
  ['does not exist', null, 'no application of this tenant'],
  ['was deleted', anApplication({ deleted: true }), 'no application of this tenant'],
  ['belongs to another tenant', anApplication({ tenant_id: OTHER_TENANT }), 'no application of this tenant'],
  ['is not private', anApplication({ type: 'public' }), 'private application, not a public one'],
];

describe('CreateReactor', () => {
  it('records the reactor for the caller\'s tenant with its sealed configuration, stamped with the caller and the clock', () => {
    given([])
      .when(create())
      .then([
        {
          type: 'ReactorCreated',
          data: {
            id: REACTOR_ID,
            tenant_id: TENANT,
            formula_id: FORMULA_ID,
            ...content,
            created_by: APP,
            created_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('accepts an official verified formula, which belongs to no tenant', () => {
    given([])
      .when(create(content, aFormula({ type: 'official', tenant_id: null })))
      .then([expect.objectContaining({ type: 'ReactorCreated' })]);
  });

  it('records the private application of the tenant that tokenizes the code\'s output', () => {
    given([])
      .when(create(withApp, aFormula(), anApplication()))
      .then([{ type: 'ReactorCreated', data: expect.objectContaining({ application_id: PRIVATE_APP_ID }) }]);
  });

  it.each([
    ['the id is taken', [created]],
    ['the id belonged to a deleted reactor', [created, deleted]],
  ])('is a conflict when %s', (_, history) => {
    given(history).when(create()).then({ error: 'conflict', message: 'A reactor with this id already exists.' });
  });

  it.each(formulaRules)('refuses %s on formula.id', (_, formula, message) => {
    given([]).when(create(content, formula)).then({
      error: 'validation',
      errors: { 'formula.id': [expect.stringContaining(message)] },
    });
  });

  it.each(shapeRules)('refuses a configuration that %s', (_, configuration_shape) => {
    given([]).when(create(aContent({ configuration_shape }))).then({
      error: 'validation',
      errors: { configuration: [expect.stringContaining('does not fit')] },
    });
  });

  it.each(applicationRules)('refuses an application that %s on application.id', (_, application, message) => {
    given([]).when(create(withApp, aFormula(), application)).then({
      error: 'validation',
      errors: { 'application.id': [expect.stringContaining(message)] },
    });
  });

  it('refuses a caller that acts for no tenant', () => {
    given([]).when(create(), anApp({ tenantId: null })).then({ error: 'forbidden' });
  });

  it('fails loudly when the handler passed the snapshot of another formula', () => {
    expect(() =>
      reactorDecider.decide(create(content, aFormula({ id: REACTOR_ID })), reactorDecider.initialState(), anApp()),
    ).toThrow('snapshot of another formula');
  });
});

describe('UpdateReactor', () => {
  const renamed = aContent({ name: 'Charge card (live)', application_id: PRIVATE_APP_ID });

  it('replaces name, sealed configuration and application, keeps tenant and formula, stamps modified_by/modified_at', () => {
    given([created])
      .when(update(renamed, aFormula(), anApplication()))
      .then([
        {
          type: 'ReactorUpdated',
          data: {
            id: REACTOR_ID,
            tenant_id: TENANT,
            formula_id: FORMULA_ID,
            ...renamed,
            modified_by: APP,
            modified_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('still updates a reactor whose formula has become coming soon (the status gates creation only)', () => {
    given([created])
      .when(update(content, aFormula({ type: 'official', tenant_id: null, status: 'coming_soon' })))
      .then([expect.objectContaining({ type: 'ReactorUpdated' })]);
  });

  it.each([
    ['does not exist', []],
    ['was deleted', [created, deleted]],
    ['belongs to another tenant', [othersReactor]],
  ])('answers not found for a reactor that %s', (_, history) => {
    given(history).when(update()).then({ error: 'not_found' });
  });

  it('is a conflict when the reactor\'s formula is gone', () => {
    given([created]).when(update(content, null)).then({ error: 'conflict', message: 'no longer exists' });
  });

  it.each(shapeRules)('refuses a configuration that %s', (_, configuration_shape) => {
    given([created]).when(update(aContent({ configuration_shape }))).then({
      error: 'validation',
      errors: { configuration: [expect.stringContaining('does not fit')] },
    });
  });

  it.each(applicationRules)('refuses an application that %s on application.id', (_, application, message) => {
    given([created]).when(update(withApp, aFormula(), application)).then({
      error: 'validation',
      errors: { 'application.id': [expect.stringContaining(message)] },
    });
  });

  it('fails loudly when the handler passed the snapshot of another formula than the reactor\'s', () => {
    const state = reactorDecider.evolve(reactorDecider.initialState(), created);
    expect(() => reactorDecider.decide(update(content, aFormula({ id: REACTOR_ID })), state, anApp())).toThrow(
      'another formula',
    );
  });
});

describe('DeleteReactor', () => {
  it('records the deletion with the reactor\'s tenant and formula', () => {
    given([created])
      .when(remove())
      .then([
        {
          type: 'ReactorDeleted',
          data: { id: REACTOR_ID, tenant_id: TENANT, formula_id: FORMULA_ID, deleted_by: APP, deleted_at: LATER.toISOString() },
        },
      ]);
  });

  it.each([
    ['does not exist', []],
    ['was already deleted', [created, deleted]],
    ['belongs to another tenant', [othersReactor]],
  ])('answers not found for a reactor that %s', (_, history) => {
    given(history).when(remove()).then({ error: 'not_found' });
  });
});

describe('reactor events', () => {
  it('never hold a configuration value: only the sealed envelope and the shape', () => {
    const [event] = reactorDecider.decide(create(), reactorDecider.initialState(), anApp());
    expect(event.data).toMatchObject({ configuration: content.configuration, configuration_shape: content.configuration_shape });
    expect(Object.keys((event.data as { configuration: object }).configuration).sort()).toEqual(
      ['alg', 'ciphertext', 'iv', 'key_ref', 'tag', 'v'],
    );
    for (const setting of content.configuration_shape) expect(Object.keys(setting).sort()).toEqual(['name', 'type']);
  });
});
