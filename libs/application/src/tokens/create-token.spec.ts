// CreateTokenHandler on the embedded stores: what POST /tokens records (the data sealed, never in plaintext), what it
// answers, deduplication, and each guard's refusal with nothing recorded.
import { randomUUID } from 'node:crypto';
import { uuidGenerator } from '@vault/adapters';
import type { AccessRule } from '@vault/domain';
import { rule, typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CreateTokenCommand, CreateTokenHandler } from './create-token';
import { openTokenVault, REVEAL_ALL, type TokenVault } from './token-vault.builders';

const SSN = '123-45-6789';

describe('CreateTokenHandler', () => {
  let vault: TokenVault;
  let handler: CreateTokenHandler;

  beforeAll(async () => {
    vault = await openTokenVault('create-token');
    handler = new CreateTokenHandler(vault.vault.runner(), vault.index, vault.crypto, vault.engine, uuidGenerator, vault.access);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  const create = (body: object, rules: AccessRule[] = REVEAL_ALL) => handler.execute(new CreateTokenCommand(vault.caller(rules), body));

  it('records TokenCreated with the data and mask sealed, and answers the token as the create rule shows it', async () => {
    const { answer, recorded } = await whenRun(vault.events, () => create({ type: 'social_security_number', data: SSN }, [rule(1, '/', 'mask', 'token:create')]));
    expect(answer).toMatchObject({ created: true, token: { type: 'social_security_number', data: 'XXX-XX-6789', containers: ['/pii/high/'] } });
    expect(typesOf(recorded)).toEqual(['TokenCreated']);
    expect(recorded[0].data).toMatchObject({ id: answer.token.id, tenant_id: vault.tenantId, type: 'social_security_number', fingerprint: answer.token.fingerprint });
    expect(JSON.stringify(recorded[0].data)).not.toContain(SSN);
    expect(JSON.stringify(recorded[0].data)).not.toContain('6789');
  });

  it('records the token under the id the caller chose', async () => {
    const id = randomUUID();
    const { answer, recorded } = await whenRun(vault.events, () => create({ id, type: 'token', data: 'x' }));
    expect(answer.token.id).toBe(id);
    expect(recorded.map(({ streamId }) => streamId)).toEqual([expect.stringContaining(id)]);
  });

  describe('deduplicate_token', () => {
    it('answers the existing token, records nothing new, and a reveal of it as an access', async () => {
      const existing = await vault.given({ type: 'social_security_number', data: SSN });
      const { answer, recorded } = await whenRun(vault.events, () => create({ type: 'social_security_number', data: '123456789', deduplicate_token: true }));
      expect(answer).toEqual({ created: false, token: expect.objectContaining({ id: existing.id, data: SSN }) });
      expect(typesOf(recorded)).toEqual(['AccessRecorded']);
      expect(recorded[0].data).toMatchObject({ entity_id: existing.id, operation: 'reveal', via: 'dedupe' });
    });

    it('shows a masked match without an access record', async () => {
      const existing = await vault.given({ type: 'social_security_number', data: SSN });
      const { answer, recorded } = await whenRun(vault.events, () =>
        create({ type: 'social_security_number', data: SSN, deduplicate_token: true }, [rule(1, '/', 'mask', 'token:create')]),
      );
      expect(answer.token).toMatchObject({ id: existing.id, data: 'XXX-XX-6789' });
      expect(recorded).toEqual([]);
    });

    it('creates a new token when the only match lies outside the caller\'s token:create rules', async () => {
      const hidden = await vault.given({ type: 'token', data: 'cust_42', containers: ['/secret/'] });
      const { answer, recorded } = await whenRun(vault.events, () =>
        create({ type: 'token', data: 'cust_42', containers: ['/mine/'], deduplicate_token: true }, [rule(1, '/mine/', 'reveal', 'token:create')]),
      );
      expect(answer.created).toBe(true);
      expect(answer.token.id).not.toBe(hidden.id);
      expect(typesOf(recorded)).toEqual(['TokenCreated']);
    });
  });

  describe('refuses, recording nothing', () => {
    it('a token in containers no token:create rule covers: 403', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => create({ type: 'social_security_number', data: SSN }, [rule(1, '/pci/', 'reveal', 'token:create')]));
      expect(error).toMatchObject({ kind: 'forbidden', message: "No access rule of this application grants token:create on the token's containers." });
      expect(recorded).toEqual([]);
    });

    it('an invalid body: 400 naming the field', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => create({ type: 'card_number', data: '1234' }));
      expect(error.kind).toBe('validation');
      expect(Object.keys(error.errors!)).toEqual(['data']);
      expect(recorded).toEqual([]);
    });

    it('an id already taken in the tenant: 409', async () => {
      const taken = await vault.given({ type: 'token', data: 'first' });
      const { error, recorded } = await whenRefused(vault.events, () => create({ id: taken.id, type: 'token', data: 'second' }));
      expect(error).toMatchObject({ kind: 'conflict', message: 'A token with this id already exists.' });
      expect(recorded).toEqual([]);
    });
  });
});
