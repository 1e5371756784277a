// DeleteApplicationHandler on the embedded stores: ApplicationDeleted; an application already deleted and one holding
// management permissions the caller lacks are refused with nothing recorded.
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { openApplicationVault, type ApplicationVault } from './application-vault.builders';
import { DeleteApplicationCommand, DeleteApplicationHandler } from './delete-application';

describe('DeleteApplicationHandler', () => {
  let vault: ApplicationVault;
  let handler: DeleteApplicationHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('delete-application');
    handler = new DeleteApplicationHandler(vault.runner);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  const remove = (id: string, permissions?: string[]) => handler.execute(new DeleteApplicationCommand(vault.admin(permissions), id));

  it('records ApplicationDeleted', async () => {
    const app = await vault.givenApplication();
    const { recorded } = await whenRun(vault.events, () => remove(app.id));
    expect(typesOf(recorded)).toEqual(['ApplicationDeleted']);
    expect(recorded[0].data).toMatchObject({ id: app.id, tenant_id: vault.tenantId });
  });

  describe('refuses, recording nothing', () => {
    it('an application already deleted: 404', async () => {
      const app = await vault.givenApplication();
      await remove(app.id);
      const { error, recorded } = await whenRefused(vault.events, () => remove(app.id));
      expect([error.kind, error.message]).toEqual(['not_found', 'Application was not found.']);
      expect(recorded).toEqual([]);
    });

    it('an application holding management permissions the caller lacks: 403', async () => {
      const admin = await vault.givenApplication({ name: 'Admin', type: 'management', permissions: ['tenant:delete'] });
      const { error, recorded } = await whenRefused(vault.events, () => remove(admin.id, ['application:delete']));
      expect(error).toMatchObject({ kind: 'forbidden', message: 'The caller cannot delete an application holding management permissions it lacks: tenant:delete.' });
      expect(recorded).toEqual([]);
    });
  });
});
