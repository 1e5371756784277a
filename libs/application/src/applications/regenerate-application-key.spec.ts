// RegenerateApplicationKeyHandler on the embedded stores: a new key of the application's type, answered once, its hash
// recorded; an unknown application is refused with nothing recorded.
import { randomUUID } from 'node:crypto';
import { apiKeys } from '@vault/adapters';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { openApplicationVault, type ApplicationVault } from './application-vault.builders';
import { RegenerateApplicationKeyCommand, RegenerateApplicationKeyHandler } from './regenerate-application-key';

describe('RegenerateApplicationKeyHandler', () => {
  let vault: ApplicationVault;
  let handler: RegenerateApplicationKeyHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('regenerate-key');
    handler = new RegenerateApplicationKeyHandler(vault.runner, apiKeys);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  const regenerate = (id: string) => handler.execute(new RegenerateApplicationKeyCommand(vault.admin(), id));

  it('records ApplicationKeyRegenerated with the hash of a new key of the same type, and answers the key', async () => {
    const app = await vault.givenApplication();
    const { answer, recorded } = await whenRun(vault.events, () => regenerate(app.id));
    expect(answer.key).not.toBe(app.key);
    expect(answer.key.slice(0, 4)).toBe(app.key.slice(0, 4));
    expect(typesOf(recorded)).toEqual(['ApplicationKeyRegenerated']);
    expect(recorded[0].data).toMatchObject({ id: app.id, key_hash: apiKeys.hash(answer.key) });
  });

  it('refuses an unknown application: 404, nothing recorded', async () => {
    const { error, recorded } = await whenRefused(vault.events, () => regenerate(randomUUID()));
    expect([error.kind, error.message]).toEqual(['not_found', 'Application was not found.']);
    expect(recorded).toEqual([]);
  });
});
