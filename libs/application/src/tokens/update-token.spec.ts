// UpdateTokenHandler on the embedded stores: what PATCH /tokens/{id} records, what it answers and when that answer is
// an access, and the refusal of each guard, asked before anything is decrypted, with nothing recorded.
import { randomUUID } from 'node:crypto';
import type { AccessRule } from '@vault/domain';
import { rule, typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { openTokenVault, REVEAL_ALL, type TokenVault } from './token-vault.builders';
import { UpdateTokenCommand, UpdateTokenHandler } from './update-token';

const SSN = '123-45-6789';

describe('UpdateTokenHandler', () => {
  let vault: TokenVault;
  let handler: UpdateTokenHandler;

  beforeAll(async () => {
    vault = await openTokenVault('update-token');
    handler = new UpdateTokenHandler(vault.vault.runner(), vault.crypto, vault.engine, vault.access);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  const update = (id: string, patch: unknown, rules: AccessRule[] = REVEAL_ALL) => handler.execute(new UpdateTokenCommand(vault.caller(rules), id, patch));

  it('records TokenUpdated with the stored content carried over when the patch re-derives nothing', async () => {
    const token = await vault.given({ type: 'social_security_number', data: SSN });
    const maskOnly = [rule(1, '/', 'mask', 'token:update')];
    const { answer, recorded } = await whenRun(vault.events, () => update(token.id, { metadata: { source: 'import' } }, maskOnly));
    expect(answer).toMatchObject({ id: token.id, data: 'XXX-XX-6789', metadata: { source: 'import' }, fingerprint: token.fingerprint });
    expect(typesOf(recorded)).toEqual(['TokenUpdated']);
    expect(recorded[0].data).toMatchObject({ id: token.id, metadata: { source: 'import' }, fingerprint: token.fingerprint });
  });

  it('seals new data again, and answers it without an access record: the caller sent it', async () => {
    const token = await vault.given({ type: 'social_security_number', data: SSN });
    const { answer, recorded } = await whenRun(vault.events, () => update(token.id, { data: '987-65-4321' }));
    expect(answer.data).toBe('987-65-4321');
    expect(typesOf(recorded)).toEqual(['TokenUpdated']);
    expect(JSON.stringify(recorded[0].data)).not.toContain('987-65-4321');
  });

  it('records a reveal of stored data the patch did not send as an access', async () => {
    const token = await vault.given({ type: 'social_security_number', data: SSN });
    const { answer, recorded } = await whenRun(vault.events, () => update(token.id, { metadata: { a: 'b' } }));
    expect(answer.data).toBe(SSN);
    expect(typesOf(recorded)).toEqual(['TokenUpdated', 'AccessRecorded']);
    expect(recorded[1].data).toMatchObject({ entity_id: token.id, operation: 'reveal', via: 'update' });
  });

  describe('refuses, recording nothing', () => {
    it('a token no token:update rule covers, as a missing one: 404', async () => {
      const token = await vault.given({ type: 'token', data: 'x', containers: ['/hr/'] });
      const uncovered = await whenRefused(vault.events, () => update(token.id, { metadata: {} }, [rule(1, '/pci/', 'reveal', 'token:update')]));
      const missing = await whenRefused(vault.events, () => update(randomUUID(), { metadata: {} }));
      expect([uncovered.error.kind, uncovered.error.message]).toEqual(['not_found', 'Token was not found.']);
      expect([missing.error.kind, missing.error.message]).toEqual(['not_found', 'Token was not found.']);
      expect([...uncovered.recorded, ...missing.recorded]).toEqual([]);
    });

    it('a re-derivation without new data under a rule that does not reveal: 403', async () => {
      const token = await vault.given({ type: 'social_security_number', data: SSN });
      const { error, recorded } = await whenRefused(vault.events, () => update(token.id, { mask: '{{ data }}' }, [rule(1, '/', 'mask', 'token:update')]));
      expect(error.kind).toBe('forbidden');
      expect(error.message).toMatch(/^Changing mask without new data needs a reveal rule for token:update/);
      expect(recorded).toEqual([]);
    });

    it('a move without new data where the caller\'s rules would show the token more: 403', async () => {
      const token = await vault.given({ type: 'token', data: 'x', containers: ['/masked/'] });
      const rules = [rule(1, '/masked/', 'mask', 'token:update', 'token:read'), rule(2, '/open/', 'reveal', 'token:update', 'token:read')];
      const { error, recorded } = await whenRefused(vault.events, () => update(token.id, { containers: ['/open/'] }, rules));
      expect(error.kind).toBe('forbidden');
      expect(error.message).toMatch(/^Moving this token to these containers without new data/);
      expect(recorded).toEqual([]);
    });

    it('a move to containers no token:update rule covers: 403', async () => {
      const token = await vault.given({ type: 'token', data: 'x', containers: ['/a/'] });
      const { error, recorded } = await whenRefused(vault.events, () => update(token.id, { data: 'y', containers: ['/b/'] }, [rule(1, '/a/', 'reveal', 'token:update')]));
      expect(error).toMatchObject({ kind: 'forbidden', message: "No access rule of this application grants token:update on the token's new containers." });
      expect(recorded).toEqual([]);
    });

    it('an invalid patch: 400', async () => {
      const token = await vault.given({ type: 'token', data: 'x' });
      const { error, recorded } = await whenRefused(vault.events, () => update(token.id, { expires_at: 'tomorrow' }));
      expect(error.kind).toBe('validation');
      expect(Object.keys(error.errors!)).toEqual(['expires_at']);
      expect(recorded).toEqual([]);
    });
  });
});
