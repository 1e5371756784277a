// CreateApplicationHandler on the embedded stores: the key is answered once and only its hash recorded; settings the
// caller may not grant, and invalid ones, are refused with nothing recorded.
import { apiKeys, uuidGenerator } from '@vault/adapters';
import type { ApplicationInput } from '@vault/domain';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CHECKOUT, openApplicationVault, type ApplicationVault } from './application-vault.builders';
import { CreateApplicationCommand, CreateApplicationHandler } from './create-application';

describe('CreateApplicationHandler', () => {
  let vault: ApplicationVault;
  let handler: CreateApplicationHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('create-application');
    handler = new CreateApplicationHandler(vault.runner, uuidGenerator, apiKeys);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  const create = (input: ApplicationInput, permissions?: string[]) => handler.execute(new CreateApplicationCommand(vault.admin(permissions), input));

  it('records ApplicationCreated with the hash of the key it answers, never the key', async () => {
    const { answer, recorded } = await whenRun(vault.events, () => create(CHECKOUT));
    expect(answer).toMatchObject({ tenant_id: vault.tenantId, name: 'Checkout', type: 'private', permissions: ['token:read', 'token:search'], key: expect.any(String) });
    expect(answer).not.toHaveProperty('key_hash');
    expect(typesOf(recorded)).toEqual(['ApplicationCreated']);
    expect(recorded[0].data).toMatchObject({ id: answer.id, tenant_id: vault.tenantId, key_hash: apiKeys.hash(answer.key) });
    expect(JSON.stringify({ data: recorded[0].data, metadata: recorded[0].metadata })).not.toContain(answer.key);
  });

  describe('refuses, recording nothing', () => {
    it('granting a management permission the caller does not hold: 403', async () => {
      const { error, recorded } = await whenRefused(vault.events, () =>
        create({ name: 'Admin', type: 'management', permissions: ['application:read'] }, ['application:create']),
      );
      expect(error).toMatchObject({ kind: 'forbidden', message: 'Only holders of a management permission may grant it; the caller lacks application:read.' });
      expect(recorded).toEqual([]);
    });

    it('invalid settings: 400 naming them', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => create({ ...CHECKOUT, name: '' }));
      expect(error.kind).toBe('validation');
      expect(Object.keys(error.errors!)).toEqual(['name']);
      expect(recorded).toEqual([]);
    });
  });
});
