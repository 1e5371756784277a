// GetApplicationHandler on the embedded stores: an application of the caller's tenant, never its key or hash, and a
// 404 for another tenant's.
import { aCaller, whenRefused } from '../shared/use-case.builders';
import { openApplicationVault, type ApplicationVault } from './application-vault.builders';
import { GetApplicationHandler, GetApplicationQuery } from './get-application';

describe('GetApplicationHandler', () => {
  let vault: ApplicationVault;
  let handler: GetApplicationHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('get-application');
    handler = new GetApplicationHandler(vault.applications);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  it('answers the application without its key or key hash', async () => {
    const { key: _key, ...app } = await vault.givenApplication();
    const answer = await handler.execute(new GetApplicationQuery(vault.admin(), app.id));
    expect(answer).toEqual(app);
    expect(answer).not.toHaveProperty('key_hash');
  });

  it("refuses another tenant's application as a missing one: 404", async () => {
    const app = await vault.givenApplication();
    const { error } = await whenRefused(vault.events, () => handler.execute(new GetApplicationQuery(aCaller({ permissions: ['application:read'] }), app.id)));
    expect([error.kind, error.message]).toEqual(['not_found', 'Application was not found.']);
  });
});
