import { givenWhenThenFor } from '@vault/test-support/given-when-then';
import {
  ALL_MANAGEMENT,
  aManagementInput,
  anInput,
  APP_ID,
  applicationCreated,
  applicationDeleted,
  asApplication,
  asOperator,
  CALLER,
  LATER,
  ONLY_CREATE,
  OTHER_TENANT,
  TENANT,
} from './application.builders';
import { ApplicationCommand, ApplicationInput, decideApplication, OPERATOR_PERMISSIONS } from './application.decide';
import type { ApplicationEvent } from './application.events';
import { evolveApplication, type ApplicationState } from './application.evolve';

const applicationDecider = {
  decide: decideApplication,
  evolve: (state: ApplicationState | null, event: ApplicationEvent) => evolveApplication(state, event),
  initialState: (): ApplicationState | null => null,
};
const { given } = givenWhenThenFor(applicationDecider, asApplication());

const create = (input: ApplicationInput, callerPermissions: readonly string[]): ApplicationCommand => ({
  type: 'CreateApplication',
  id: APP_ID,
  keyHash: 'hash-new',
  input,
  callerPermissions,
});
const update = (input: ApplicationInput, callerPermissions: readonly string[]): ApplicationCommand => ({
  type: 'UpdateApplication',
  id: APP_ID,
  input,
  callerPermissions,
});
const regenerate = (callerPermissions: readonly string[]): ApplicationCommand => ({
  type: 'RegenerateApplicationKey',
  id: APP_ID,
  keyHash: 'hash-2',
  callerPermissions,
});
const remove = (callerPermissions: readonly string[]): ApplicationCommand => ({ type: 'DeleteApplication', id: APP_ID, callerPermissions });

const at = LATER.toISOString();
const powerful = applicationCreated(aManagementInput(['application:read', 'application:delete', 'reactor:create']));
const tokenApp = applicationCreated(anInput());

describe('CreateApplication', () => {
  it('records the validated settings, the key hash, the caller and the clock', () => {
    given([])
      .when(create(anInput({ permissions: ['token:read', 'token:read'] }), ONLY_CREATE))
      .then([
        {
          type: 'ApplicationCreated',
          data: {
            id: APP_ID,
            tenant_id: TENANT,
            name: 'Checkout',
            type: 'private',
            permissions: ['token:read'],
            rules: [],
            expires_at: null,
            key_hash: 'hash-new',
            created_by: CALLER,
            created_at: at,
          },
        },
      ]);
  });

  it('refuses an id that is taken (409)', () => {
    given([tokenApp]).when(create(anInput(), ALL_MANAGEMENT)).then({ error: 'conflict' });
  });

  it('lets a holder of only application:create grant token permissions: that is what they are for', () => {
    given([])
      .when(create(anInput({ permissions: ['token:create', 'token:read', 'token:search', 'token:delete', 'token:use'] }), ONLY_CREATE))
      .then([expect.objectContaining({ type: 'ApplicationCreated' }) as unknown as ApplicationEvent]);
  });

  it('forbids granting management permissions the caller lacks, naming each of them and nothing else', () => {
    given([])
      .when(create(aManagementInput(['application:create', 'application:delete', 'reactor:create']), ONLY_CREATE))
      .then({
        error: 'forbidden',
        message: 'the caller lacks application:delete, reactor:create.',
        errors: {
          'permissions[1]': ['the caller does not hold "application:delete", so it cannot grant it'],
          'permissions[2]': ['the caller does not hold "reactor:create", so it cannot grant it'],
        },
      });
  });

  it('lets a caller grant the management permissions it holds', () => {
    given([])
      .when(create(aManagementInput(['application:create', 'application:read']), ['application:create', 'application:read']))
      .then([expect.objectContaining({ type: 'ApplicationCreated' }) as unknown as ApplicationEvent]);
  });

  it('reports a bad body (400) before the grant check', () => {
    given([])
      .when(create(aManagementInput(['application:delete', 'token:fly']), ONLY_CREATE))
      .then({ error: 'validation', errors: { 'permissions[1]': [expect.any(String)] as unknown as string[] } });
  });

  it('lets the operator and the bootstrap grant every management permission', () => {
    given([])
      .when(create(aManagementInput(ALL_MANAGEMENT), OPERATOR_PERMISSIONS), asOperator())
      .then([
        expect.objectContaining({
          type: 'ApplicationCreated',
          data: expect.objectContaining({ permissions: ALL_MANAGEMENT, created_by: 'cli' }),
        }) as unknown as ApplicationEvent,
      ]);
  });
});

describe('UpdateApplication', () => {
  it('records the new settings with modified_by and modified_at', () => {
    given([tokenApp])
      .when(update(anInput({ name: 'Renamed', permissions: ['token:read'] }), ['application:update']))
      .then([
        {
          type: 'ApplicationUpdated',
          data: {
            id: APP_ID,
            tenant_id: TENANT,
            name: 'Renamed',
            type: 'private',
            permissions: ['token:read'],
            rules: [],
            expires_at: null,
            modified_by: CALLER,
            modified_at: at,
          },
        },
      ]);
  });

  it('forbids updating an application that holds management permissions the caller lacks', () => {
    given([powerful])
      .when(update(anInput(), ['application:update']))
      .then({ error: 'forbidden', message: 'cannot update an application holding management permissions it lacks: application:read, application:delete, reactor:create.' });
  });

  it('forbids adding management permissions the caller lacks', () => {
    given([applicationCreated(aManagementInput(['application:read']))])
      .when(update(aManagementInput(['application:read', 'tenant:delete']), ['application:update', 'application:read']))
      .then({ error: 'forbidden', message: 'the caller lacks tenant:delete.', errors: { 'permissions[1]': [expect.stringContaining('tenant:delete')] as unknown as string[] } });
  });

  it('lets a caller update an application whose management permissions it holds too', () => {
    given([applicationCreated(aManagementInput(['application:read']))])
      .when(update(aManagementInput(['application:read', 'log:read']), ['application:update', 'application:read', 'log:read']))
      .then([expect.objectContaining({ type: 'ApplicationUpdated' }) as unknown as ApplicationEvent]);
  });

  it('answers 404, not 403, for another tenant’s application', () => {
    given([applicationCreated(aManagementInput(ALL_MANAGEMENT), { tenantId: OTHER_TENANT })])
      .when(update(anInput(), ['application:update']))
      .then({ error: 'not_found' });
  });
});

describe('RegenerateApplicationKey', () => {
  it('records the new key hash', () => {
    given([tokenApp])
      .when(regenerate(['application:update']))
      .then([
        {
          type: 'ApplicationKeyRegenerated',
          data: { id: APP_ID, tenant_id: TENANT, key_hash: 'hash-2', modified_by: CALLER, modified_at: at },
        },
      ]);
  });

  it('forbids regenerating the key of a more powerful application (the caller would hold its key)', () => {
    given([powerful])
      .when(regenerate(['application:update', 'application:read']))
      .then({ error: 'forbidden', message: 'cannot regenerate the key of an application holding management permissions it lacks: application:delete, reactor:create.' });
  });

  it('records nothing when the key hash is the one the application has (two start-ups completing one bootstrap)', () => {
    given([tokenApp, { type: 'ApplicationKeyRegenerated', data: { id: APP_ID, tenant_id: TENANT, key_hash: 'hash-2', modified_by: CALLER, modified_at: at } }])
      .when(regenerate(['application:update']))
      .then([]);
  });

  it('lets the operator regenerate any key', () => {
    given([powerful])
      .when(regenerate(OPERATOR_PERMISSIONS), asOperator())
      .then([expect.objectContaining({ type: 'ApplicationKeyRegenerated' }) as unknown as ApplicationEvent]);
  });
});

describe('DeleteApplication', () => {
  it('records the deletion', () => {
    given([tokenApp])
      .when(remove(['application:delete']))
      .then([{ type: 'ApplicationDeleted', data: { id: APP_ID, tenant_id: TENANT, deleted_by: CALLER, deleted_at: at } }]);
  });

  it('forbids deleting a more powerful application', () => {
    given([powerful])
      .when(remove(['application:delete']))
      .then({ error: 'forbidden', message: 'cannot delete an application holding management permissions it lacks: application:read, reactor:create.' });
  });

  it('lets a caller delete an application as powerful as itself', () => {
    given([powerful])
      .when(remove(['application:read', 'application:delete', 'reactor:create']))
      .then([expect.objectContaining({ type: 'ApplicationDeleted' }) as unknown as ApplicationEvent]);
  });

  it('answers 404 for a deleted application', () => {
    given([tokenApp, applicationDeleted()]).when(remove(ALL_MANAGEMENT)).then({ error: 'not_found' });
  });
});
