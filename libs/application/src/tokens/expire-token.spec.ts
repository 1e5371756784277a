// ExpireTokenHandler on the embedded stores: the expiry sweep deletes an expired token as the system, and nothing else.
import { randomUUID } from 'node:crypto';
import type { LogPosition } from '../ports/event-store';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { ExpireTokenCommand, ExpireTokenHandler } from './expire-token';
import { openTokenVault, type TokenVault } from './token-vault.builders';

describe('ExpireTokenHandler', () => {
  let vault: TokenVault;
  const waitedFor: LogPosition[] = [];
  let handler: ExpireTokenHandler;

  beforeAll(async () => {
    vault = await openTokenVault('expire-token');
    const shredder = { waitFor: async (position: LogPosition) => (waitedFor.push(position), true) };
    handler = new ExpireTokenHandler(vault.vault.runner(), { waiter: shredder, timeoutMs: 1000 });
  });
  beforeEach(() => {
    vault.newTenant();
    waitedFor.length = 0;
  });
  afterAll(() => vault.close());

  const soon = () => new Date(Date.now() + 60_000).toISOString();
  const later = () => new Date(Date.now() + 120_000);

  it('records TokenDeleted for an expired token, as the expiry sweep, and waits for the key shredder', async () => {
    const token = await vault.given({ type: 'token', data: 'x', expires_at: soon() });
    const { recorded } = await whenRun(vault.events, () => handler.execute(new ExpireTokenCommand(vault.tenantId, token.id, later())));
    expect(typesOf(recorded)).toEqual(['TokenDeleted']);
    expect(recorded[0].data).toMatchObject({ id: token.id, reason: 'expired', deleted_by: 'expiry-sweep' });
    expect(recorded[0].metadata.actor).toEqual({ type: 'system', id: 'expiry-sweep' });
    expect(waitedFor).toEqual([recorded[0].position]);
  });

  it('refuses a token that has not expired: 409, nothing recorded', async () => {
    const token = await vault.given({ type: 'token', data: 'x', expires_at: soon() });
    const { error, recorded } = await whenRefused(vault.events, () => handler.execute(new ExpireTokenCommand(vault.tenantId, token.id, new Date())));
    expect(error).toMatchObject({ kind: 'conflict', message: 'The token has not expired.' });
    expect(recorded).toEqual([]);
  });

  it("refuses a token of another tenant, or none: 404, nothing recorded", async () => {
    const token = await vault.given({ type: 'token', data: 'x', expires_at: soon() });
    const other = await whenRefused(vault.events, () => handler.execute(new ExpireTokenCommand(randomUUID(), token.id, later())));
    const missing = await whenRefused(vault.events, () => handler.execute(new ExpireTokenCommand(vault.tenantId, randomUUID(), later())));
    expect([other.error.kind, missing.error.kind]).toEqual(['not_found', 'not_found']);
    expect([...other.recorded, ...missing.recorded]).toEqual([]);
  });
});
