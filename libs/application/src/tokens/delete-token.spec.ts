// DeleteTokenHandler on the embedded stores: TokenDeleted, an answer that waits for the key shredder, and a token the
// caller may not delete answered as a missing one.
import { randomUUID } from 'node:crypto';
import type { LogPosition } from '../ports/event-store';
import { rule, typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { DeleteTokenCommand, DeleteTokenHandler } from './delete-token';
import { openTokenVault, REVEAL_ALL, type TokenVault } from './token-vault.builders';

describe('DeleteTokenHandler', () => {
  let vault: TokenVault;
  /** The positions the delete waited for the shredder to pass. */
  const waitedFor: LogPosition[] = [];
  let handler: DeleteTokenHandler;

  beforeAll(async () => {
    vault = await openTokenVault('delete-token');
    const shredder = { waitFor: async (position: LogPosition) => (waitedFor.push(position), true) };
    handler = new DeleteTokenHandler(vault.vault.runner(), { waiter: shredder, timeoutMs: 1000 });
  });
  beforeEach(() => {
    vault.newTenant();
    waitedFor.length = 0;
  });
  afterAll(() => vault.close());

  const remove = (id: string, rules = REVEAL_ALL) => handler.execute(new DeleteTokenCommand(vault.caller(rules), id));

  it('records TokenDeleted and answers once the key shredder has passed it', async () => {
    const token = await vault.given({ type: 'token', data: 'x' });
    const { recorded } = await whenRun(vault.events, () => remove(token.id));
    expect(typesOf(recorded)).toEqual(['TokenDeleted']);
    expect(recorded[0].data).toMatchObject({ id: token.id, tenant_id: vault.tenantId, reason: 'requested' });
    expect(waitedFor).toEqual([recorded[0].position]);
  });

  it('refuses a token no token:delete rule covers as a missing one: 404, nothing recorded', async () => {
    const token = await vault.given({ type: 'token', data: 'x', containers: ['/hr/'] });
    const uncovered = await whenRefused(vault.events, () => remove(token.id, [rule(1, '/', 'reveal', 'token:read', 'token:update')]));
    const missing = await whenRefused(vault.events, () => remove(randomUUID()));
    expect([uncovered.error.kind, uncovered.error.message]).toEqual(['not_found', 'Token was not found.']);
    expect([missing.error.kind, missing.error.message]).toEqual(['not_found', 'Token was not found.']);
    expect([...uncovered.recorded, ...missing.recorded]).toEqual([]);
    expect(waitedFor).toEqual([]);
  });
});
