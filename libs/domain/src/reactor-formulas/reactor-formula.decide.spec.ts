import { givenWhenThenFor } from '@vault/test-support/given-when-then';
import {
  aFormulaInput,
  APP,
  CREATED_AT,
  FORMULA_ID,
  formulaCreated,
  LATER,
  operator,
  OTHER_TENANT,
  TENANT,
  tenantApp,
} from './reactor-formula.builders';
import { reactorFormulaDecider, type ReactorFormulaCommand } from './reactor-formula.decide';
import type { ReactorFormulaEvent } from './reactor-formula.events';

const { given } = givenWhenThenFor(reactorFormulaDecider, tenantApp());

const privateInput = aFormulaInput();
const officialInput = aFormulaInput({ name: 'Tokenize Payload', type: 'official' });

const create = (input = privateInput, id = FORMULA_ID): ReactorFormulaCommand => ({
  type: 'CreateReactorFormula',
  data: { id, input },
});
const update = (input = privateInput, id = FORMULA_ID): ReactorFormulaCommand => ({
  type: 'UpdateReactorFormula',
  data: { id, input },
});
const remove = (id = FORMULA_ID): ReactorFormulaCommand => ({ type: 'DeleteReactorFormula', data: { id } });
const importOfficial = (input = officialInput, status: 'verified' | 'coming_soon' = 'coming_soon'): ReactorFormulaCommand => ({
  type: 'ImportOfficialFormula',
  data: { id: FORMULA_ID, input, status },
});

const deleted: ReactorFormulaEvent = {
  type: 'ReactorFormulaDeleted',
  data: { id: FORMULA_ID, deleted_by: APP, deleted_at: CREATED_AT.toISOString() },
};
const ownPrivate = formulaCreated(privateInput, { tenantId: TENANT });
const othersPrivate = formulaCreated(privateInput, { tenantId: OTHER_TENANT });
const official = formulaCreated(officialInput, { tenantId: null, status: 'coming_soon', by: 'cli' });

describe('CreateReactorFormula', () => {
  it('creates a private formula owned by the caller\'s tenant, verified, stamped with the caller and the clock', () => {
    given([])
      .when(create())
      .then([
        {
          type: 'ReactorFormulaCreated',
          data: {
            id: FORMULA_ID,
            tenant_id: TENANT,
            status: 'verified',
            ...privateInput,
            created_by: APP,
            created_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('forbids a tenant application to create an official formula', () => {
    given([]).when(create(officialInput)).then({ error: 'forbidden', message: 'cannot create' });
  });

  it('lets the operator create an official formula, owned by no tenant', () => {
    given([])
      .when(create(officialInput), operator())
      .then([
        {
          type: 'ReactorFormulaCreated',
          data: {
            id: FORMULA_ID,
            tenant_id: null,
            status: 'verified',
            ...officialInput,
            created_by: 'cli',
            created_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('refuses a private formula from a caller that acts for no tenant', () => {
    given([]).when(create(), operator()).then({ error: 'validation', errors: { type: [expect.stringContaining('tenant')] } });
  });

  it('refuses an id that is already taken', () => {
    given([ownPrivate]).when(create()).then({ error: 'conflict' });
  });
});

describe('UpdateReactorFormula', () => {
  const renamed = aFormulaInput({ name: 'Mask Emails', description: 'Hides the local part' });

  it('replaces every field of the tenant\'s own formula and stamps modified_by/modified_at', () => {
    given([ownPrivate])
      .when(update(renamed))
      .then([
        {
          type: 'ReactorFormulaUpdated',
          data: {
            id: FORMULA_ID,
            tenant_id: TENANT,
            status: 'verified',
            ...renamed,
            modified_by: APP,
            modified_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('answers not found for a formula that does not exist', () => {
    given([]).when(update()).then({ error: 'not_found', message: /^Reactor formula was not found\.$/ });
  });

  it('answers not found for a deleted formula', () => {
    given([ownPrivate, deleted]).when(update()).then({ error: 'not_found' });
  });

  it('answers not found, never forbidden, for another tenant\'s private formula', () => {
    given([othersPrivate]).when(update()).then({ error: 'not_found', message: /^Reactor formula was not found\.$/ });
  });

  it('forbids a tenant application to update an official formula', () => {
    given([official]).when(update(officialInput)).then({ error: 'forbidden' });
  });

  it('forbids a tenant application to turn an official formula into a private one', () => {
    given([official]).when(update(privateInput)).then({ error: 'forbidden' });
  });

  it('forbids a tenant application to turn its private formula into an official one', () => {
    given([ownPrivate]).when(update(officialInput)).then({ error: 'forbidden' });
  });

  it('keeps the operator-given status when the operator updates an official formula', () => {
    const changed = { ...officialInput, code: 'module.exports = async () => ({});' };
    given([official])
      .when(update(changed), operator())
      .then([
        {
          type: 'ReactorFormulaUpdated',
          data: {
            id: FORMULA_ID,
            tenant_id: null,
            status: 'coming_soon',
            ...changed,
            modified_by: 'cli',
            modified_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('does not let the operator reach a tenant\'s private formula', () => {
    given([ownPrivate]).when(update(), operator()).then({ error: 'not_found' });
  });
});

describe('DeleteReactorFormula', () => {
  it('deletes the tenant\'s own formula, recording who and when', () => {
    given([ownPrivate])
      .when(remove())
      .then([
        { type: 'ReactorFormulaDeleted', data: { id: FORMULA_ID, deleted_by: APP, deleted_at: LATER.toISOString() } },
      ]);
  });

  it('answers not found for a formula that does not exist', () => {
    given([]).when(remove()).then({ error: 'not_found', message: /^Reactor formula was not found\.$/ });
  });

  it('answers not found when the formula is already deleted', () => {
    given([ownPrivate, deleted]).when(remove()).then({ error: 'not_found' });
  });

  it('answers not found for another tenant\'s private formula', () => {
    given([othersPrivate]).when(remove()).then({ error: 'not_found', message: /^Reactor formula was not found\.$/ });
  });

  it('forbids a tenant application to delete an official formula', () => {
    given([official]).when(remove()).then({ error: 'forbidden' });
  });

  it('lets the operator delete an official formula', () => {
    given([official])
      .when(remove(), operator())
      .then([
        { type: 'ReactorFormulaDeleted', data: { id: FORMULA_ID, deleted_by: 'cli', deleted_at: LATER.toISOString() } },
      ]);
  });
});

describe('ImportOfficialFormula', () => {
  it('creates the formula with the file\'s status when it is absent', () => {
    given([])
      .when(importOfficial(), operator())
      .then([
        {
          type: 'ReactorFormulaCreated',
          data: {
            id: FORMULA_ID,
            tenant_id: null,
            status: 'coming_soon',
            ...officialInput,
            created_by: 'cli',
            created_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('updates the formula, status included, when the file changed', () => {
    given([official])
      .when(importOfficial(officialInput, 'verified'), operator())
      .then([
        {
          type: 'ReactorFormulaUpdated',
          data: {
            id: FORMULA_ID,
            tenant_id: null,
            status: 'verified',
            ...officialInput,
            modified_by: 'cli',
            modified_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('records nothing when the file is unchanged, so re-importing is harmless', () => {
    given([official]).when(importOfficial(officialInput, 'coming_soon'), operator()).then([]);
  });

  it('recreates a formula the operator had deleted', () => {
    given([official, deleted])
      .when(importOfficial(), operator())
      .then([
        {
          type: 'ReactorFormulaCreated',
          data: {
            id: FORMULA_ID,
            tenant_id: null,
            status: 'coming_soon',
            ...officialInput,
            created_by: 'cli',
            created_at: LATER.toISOString(),
          },
        },
      ]);
  });

  it('forbids a tenant application to import', () => {
    given([]).when(importOfficial()).then({ error: 'forbidden' });
  });

  it('refuses a file whose type is private', () => {
    given([]).when(importOfficial(privateInput), operator()).then({ error: 'validation', errors: { type: [expect.any(String)] } });
  });

  it('refuses an id that belongs to a tenant\'s private formula', () => {
    given([ownPrivate]).when(importOfficial(), operator()).then({ error: 'conflict' });
  });
});
