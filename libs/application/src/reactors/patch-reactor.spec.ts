// PatchReactorHandler on the embedded stores: the merge patch resolved against the stored configuration, opened in
// memory only, and the refusal of a change that would keep settings a caller without reactor:read cannot see.
import { KEPT_SECRETS_NEED_READ_MESSAGE } from '@vault/domain';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { PatchReactorCommand, PatchReactorHandler } from './patch-reactor';
import { openReactorVault, SECRET, type ReactorVault } from './reactor-vault.builders';

describe('PatchReactorHandler', () => {
  let vault: ReactorVault;
  let handler: PatchReactorHandler;

  beforeAll(async () => {
    vault = await openReactorVault('patch-reactor');
    handler = new PatchReactorHandler(vault.runner, vault.events, vault.crypto);
  });
  afterAll(() => vault.close());

  const patch = (id: string, body: unknown, permissions?: string[]) => handler.execute(new PatchReactorCommand(vault.caller(permissions), id, body));

  it('records ReactorUpdated with the patch merged into the stored configuration', async () => {
    const reactor = await vault.givenReactor(await vault.givenFormula());
    const { answer, recorded } = await whenRun(vault.events, () => patch(reactor.id, { configuration: { sandbox: false } }));
    expect(answer).toMatchObject({ name: 'Charge', configuration: { api_key: SECRET, sandbox: false } });
    expect(typesOf(recorded)).toEqual(['ReactorUpdated']);
    expect(JSON.stringify(recorded[0].data)).not.toContain(SECRET);
  });

  it('lets a caller without reactor:read rename the reactor, and answers it without the configuration', async () => {
    const reactor = await vault.givenReactor(await vault.givenFormula());
    const renamed = await patch(reactor.id, { name: 'Renamed' }, ['reactor:update']);
    expect(renamed).toMatchObject({ name: 'Renamed' });
    expect(renamed).not.toHaveProperty('configuration');
  });

  describe('refuses, recording nothing', () => {
    it('a caller without reactor:read changing some settings and keeping others: 403', async () => {
      const reactor = await vault.givenReactor(await vault.givenFormula());
      const { error, recorded } = await whenRefused(vault.events, () => patch(reactor.id, { configuration: { sandbox: false } }, ['reactor:update']));
      expect(error).toMatchObject({ kind: 'forbidden', message: KEPT_SECRETS_NEED_READ_MESSAGE });
      expect(recorded).toEqual([]);
    });

    it('a patch that is no object: 400', async () => {
      const reactor = await vault.givenReactor(await vault.givenFormula());
      const { error, recorded } = await whenRefused(vault.events, () => patch(reactor.id, ['name']));
      expect(error.kind).toBe('validation');
      expect(recorded).toEqual([]);
    });
  });
});
