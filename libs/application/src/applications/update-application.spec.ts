// UpdateApplicationHandler on the embedded stores: the new settings recorded and answered; an unknown application and
// one holding management permissions the caller lacks are refused with nothing recorded.
import { randomUUID } from 'node:crypto';
import type { ApplicationInput } from '@vault/domain';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CHECKOUT, openApplicationVault, type ApplicationVault } from './application-vault.builders';
import { UpdateApplicationCommand, UpdateApplicationHandler } from './update-application';

describe('UpdateApplicationHandler', () => {
  let vault: ApplicationVault;
  let handler: UpdateApplicationHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('update-application');
    handler = new UpdateApplicationHandler(vault.runner);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  const update = (id: string, input: ApplicationInput, permissions?: string[]) => handler.execute(new UpdateApplicationCommand(vault.admin(permissions), id, input));

  it('records ApplicationUpdated and answers the application as it now is', async () => {
    const app = await vault.givenApplication();
    const { answer, recorded } = await whenRun(vault.events, () => update(app.id, { ...CHECKOUT, name: 'Checkout v2' }));
    expect(answer).toMatchObject({ id: app.id, name: 'Checkout v2', modified_by: expect.any(String) });
    expect(answer).not.toHaveProperty('key');
    expect(typesOf(recorded)).toEqual(['ApplicationUpdated']);
  });

  describe('refuses, recording nothing', () => {
    it('an unknown application: 404', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => update(randomUUID(), CHECKOUT));
      expect([error.kind, error.message]).toEqual(['not_found', 'Application was not found.']);
      expect(recorded).toEqual([]);
    });

    it('an application holding management permissions the caller lacks: 403', async () => {
      const admin = await vault.givenApplication({ name: 'Admin', type: 'management', permissions: ['application:read', 'application:update'] });
      const { error, recorded } = await whenRefused(vault.events, () => update(admin.id, CHECKOUT, ['application:update']));
      expect(error).toMatchObject({ kind: 'forbidden', message: 'The caller cannot update an application holding management permissions it lacks: application:read.' });
      expect(recorded).toEqual([]);
    });
  });
});
