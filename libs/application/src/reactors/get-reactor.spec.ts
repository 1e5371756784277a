// GetReactorHandler on the embedded stores: the reactor from its read model with its configuration opened, and a 404
// for an unknown reactor and for one whose key a delete has already shredded (never a 500).
import { randomUUID } from 'node:crypto';
import { whenRefused } from '../shared/use-case.builders';
import { GetReactorHandler, GetReactorQuery } from './get-reactor';
import { openReactorVault, SECRET, type ReactorVault } from './reactor-vault.builders';

describe('GetReactorHandler', () => {
  let vault: ReactorVault;
  let handler: GetReactorHandler;

  beforeAll(async () => {
    vault = await openReactorVault('get-reactor', { projected: true });
    handler = new GetReactorHandler(vault.reactors, vault.formulas, vault.crypto);
  });
  afterAll(() => vault.close());

  const get = (id: string) => handler.execute(new GetReactorQuery(vault.caller(), id));

  it('answers the reactor with its configuration opened and its formula as it is now', async () => {
    const formulaId = await vault.givenFormula();
    const reactor = await vault.givenReactor(formulaId);
    expect(await get(reactor.id)).toEqual({ ...reactor, formula: expect.objectContaining({ id: formulaId, name: 'Gateway', code: expect.any(String) }) });
    expect((await get(reactor.id)).configuration).toEqual({ api_key: SECRET, sandbox: true });
  });

  it('refuses an unknown reactor: 404', async () => {
    const { error } = await whenRefused(vault.events, () => get(randomUUID()));
    expect([error.kind, error.message]).toEqual(['not_found', 'Reactor was not found.']);
  });

  it('refuses a reactor whose key is already shredded (a delete in flight): 404', async () => {
    const reactor = await vault.givenReactor(await vault.givenFormula());
    await vault.keys.destroy(vault.tenantId, `reactor:${reactor.id}`);
    const { error } = await whenRefused(vault.events, () => get(reactor.id));
    expect(error.kind).toBe('not_found');
  });
});
