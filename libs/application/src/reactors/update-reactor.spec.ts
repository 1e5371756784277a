// UpdateReactorHandler on the embedded stores: PUT records the whole reactor anew, its configuration sealed again, and
// refuses an unknown reactor and a configuration its formula does not declare, with nothing recorded.
import { randomUUID } from 'node:crypto';
import type { EncryptedData } from '@vault/domain';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { openReactorVault, SECRET, type ReactorVault } from './reactor-vault.builders';
import { UpdateReactorCommand, UpdateReactorHandler } from './update-reactor';

describe('UpdateReactorHandler', () => {
  let vault: ReactorVault;
  let handler: UpdateReactorHandler;

  beforeAll(async () => {
    vault = await openReactorVault('update-reactor');
    handler = new UpdateReactorHandler(vault.runner, vault.events, vault.crypto);
  });
  afterAll(() => vault.close());

  const update = (id: string, body: object) => handler.execute(new UpdateReactorCommand(vault.caller(), id, body));

  it('records ReactorUpdated with the new configuration sealed, and answers it opened', async () => {
    const reactor = await vault.givenReactor(await vault.givenFormula());
    const { answer, recorded } = await whenRun(vault.events, () => update(reactor.id, { name: 'Refund', configuration: { api_key: 'sk_new', sandbox: false } }));
    expect(answer).toMatchObject({ id: reactor.id, name: 'Refund', configuration: { api_key: 'sk_new', sandbox: false }, modified_by: expect.any(String) });
    expect(typesOf(recorded)).toEqual(['ReactorUpdated']);
    expect(JSON.stringify(recorded[0].data)).not.toContain('sk_new');
    expect((recorded[0].data as { configuration: EncryptedData }).configuration.key_ref).toBe(`reactor:${reactor.id}`);
  });

  describe('refuses, recording nothing', () => {
    it('an unknown reactor: 404', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => update(randomUUID(), { name: 'x', configuration: { api_key: SECRET, sandbox: true } }));
      expect([error.kind, error.message]).toEqual(['not_found', 'Reactor was not found.']);
      expect(recorded).toEqual([]);
    });

    it('a configuration the formula does not declare: 400', async () => {
      const reactor = await vault.givenReactor(await vault.givenFormula());
      const { error, recorded } = await whenRefused(vault.events, () => update(reactor.id, { name: 'x', configuration: { api_key: SECRET, sandbox: true, extra: 1 } }));
      expect(error.kind).toBe('validation');
      expect(recorded).toEqual([]);
    });
  });
});
