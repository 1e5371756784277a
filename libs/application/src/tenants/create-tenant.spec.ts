// CreateTenantHandler on the embedded stores: the management application first, TenantCreated last (the write that
// makes the key usable), and a bad name refused before anything is written.
import { apiKeys, systemClock, uuidGenerator } from '@vault/adapters';
import { applicationStream, tenantStream } from '@vault/domain';
import { openApplicationVault, type ApplicationVault } from '../applications/application-vault.builders';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CreateTenantCommand, CreateTenantHandler } from './create-tenant';

const OPERATOR = { type: 'operator', id: 'cli' } as const;

describe('CreateTenantHandler', () => {
  let vault: ApplicationVault;
  let handler: CreateTenantHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('create-tenant');
    handler = new CreateTenantHandler(vault.runner, uuidGenerator, apiKeys, systemClock);
  });
  afterAll(() => vault.close());

  it('records the management application, then TenantCreated, and answers the management key once', async () => {
    const { answer, recorded } = await whenRun(vault.events, () => handler.execute(new CreateTenantCommand('acme', OPERATOR, 'corr-1')));
    expect(typesOf(recorded)).toEqual(['ApplicationCreated', 'TenantCreated']);
    const [application, tenant] = recorded;
    expect(application.streamId).toBe(applicationStream((application.data as { id: string }).id));
    expect(application.data).toMatchObject({ tenant_id: answer.tenant_id, type: 'management', key_hash: apiKeys.hash(answer.management_key) });
    expect(tenant.streamId).toBe(tenantStream(answer.tenant_id));
    expect(tenant.data).toMatchObject({ id: answer.tenant_id, name: 'acme', created_by: 'cli' });
  });

  it('refuses a bad name before anything is written: 400', async () => {
    const { error, recorded } = await whenRefused(vault.events, () => handler.execute(new CreateTenantCommand('  ', OPERATOR, 'corr-2')));
    expect(error.kind).toBe('validation');
    expect(error.errors).toEqual({ name: ['name must be 1 to 200 characters long'] });
    expect(recorded).toEqual([]);
  });
});
