// ListApplicationsHandler on the embedded stores: a page of the caller's tenant's applications, none of another's.
import { aCaller } from '../shared/use-case.builders';
import { openApplicationVault, type ApplicationVault } from './application-vault.builders';
import { ListApplicationsHandler, ListApplicationsQuery } from './list-applications';

describe('ListApplicationsHandler', () => {
  let vault: ApplicationVault;
  let handler: ListApplicationsHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('list-applications');
    handler = new ListApplicationsHandler(vault.applications);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  it("answers the tenant's applications with the exact total, without keys", async () => {
    const ids = [(await vault.givenApplication()).id, (await vault.givenApplication({ name: 'Search', type: 'private', permissions: ['token:search'] })).id];
    const page = await handler.execute(new ListApplicationsQuery(vault.admin(), { page: 1, size: 10 }));
    expect(page.total).toBe(2);
    expect(page.items.map(({ id }) => id).sort()).toEqual(ids.sort());
    for (const item of page.items) expect(Object.keys(item)).not.toEqual(expect.arrayContaining(['key']));
  });

  it('shows another tenant none of them', async () => {
    await vault.givenApplication();
    expect(await handler.execute(new ListApplicationsQuery(aCaller(), { page: 1, size: 10 }))).toEqual({ total: 0, items: [] });
  });
});
