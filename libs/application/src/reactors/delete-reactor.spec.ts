// DeleteReactorHandler on the embedded stores: ReactorDeleted, and an answer that waits for the key shredder to destroy
// the configuration's key; an unknown reactor is a 404 with nothing recorded.
import { randomUUID } from 'node:crypto';
import type { LogPosition } from '../ports/event-store';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { DeleteReactorCommand, DeleteReactorHandler } from './delete-reactor';
import { openReactorVault, type ReactorVault } from './reactor-vault.builders';

describe('DeleteReactorHandler', () => {
  let vault: ReactorVault;
  const waitedFor: LogPosition[] = [];
  let handler: DeleteReactorHandler;

  beforeAll(async () => {
    vault = await openReactorVault('delete-reactor');
    const shredder = { waitFor: async (position: LogPosition) => (waitedFor.push(position), true) };
    handler = new DeleteReactorHandler(vault.runner, { waiter: shredder, timeoutMs: 1000 });
  });
  beforeEach(() => {
    waitedFor.length = 0;
  });
  afterAll(() => vault.close());

  const remove = (id: string) => handler.execute(new DeleteReactorCommand(vault.caller(), id));

  it('records ReactorDeleted and answers once the key shredder has passed it', async () => {
    const reactor = await vault.givenReactor(await vault.givenFormula());
    const { recorded } = await whenRun(vault.events, () => remove(reactor.id));
    expect(typesOf(recorded)).toEqual(['ReactorDeleted']);
    expect(recorded[0].data).toMatchObject({ id: reactor.id, tenant_id: vault.tenantId });
    expect(waitedFor).toEqual([recorded[0].position]);
  });

  it('refuses an unknown reactor: 404, nothing recorded', async () => {
    const { error, recorded } = await whenRefused(vault.events, () => remove(randomUUID()));
    expect([error.kind, error.message]).toEqual(['not_found', 'Reactor was not found.']);
    expect(recorded).toEqual([]);
    expect(waitedFor).toEqual([]);
  });
});
