// GetTokenHandler on the embedded stores: the token as the caller's token:read rule shows it, a reveal recorded as an
// access before the answer, and a token no rule covers answered as a missing one.
import { randomUUID } from 'node:crypto';
import type { AccessRule } from '@vault/domain';
import { rule, typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { GetTokenHandler, GetTokenQuery } from './get-token';
import { openTokenVault, type TokenVault } from './token-vault.builders';

const SSN = '123-45-6789';

describe('GetTokenHandler', () => {
  let vault: TokenVault;
  let handler: GetTokenHandler;

  beforeAll(async () => {
    vault = await openTokenVault('get-token');
    handler = new GetTokenHandler(vault.index, vault.crypto, vault.access);
  });
  beforeEach(() => vault.newTenant());
  afterAll(() => vault.close());

  const get = (id: string, rules: AccessRule[]) => handler.execute(new GetTokenQuery(vault.caller(rules), id));

  it.each([
    ['reveal', SSN, ['AccessRecorded']],
    ['mask', 'XXX-XX-6789', []],
    ['redact', undefined, []],
  ] as const)('answers under a %s rule, recording only a reveal as an access', async (transform, data, types) => {
    const token = await vault.given({ type: 'social_security_number', data: SSN });
    const { answer, recorded } = await whenRun(vault.events, () => get(token.id, [rule(1, '/', transform, 'token:read')]));
    expect(answer).toEqual({ ...token, ...(data === undefined ? { data: undefined } : { data }) });
    expect(typesOf(recorded)).toEqual(types);
    if (transform === 'reveal') expect(recorded[0].data).toMatchObject({ entity_id: token.id, operation: 'reveal', via: 'get' });
  });

  it('refuses a token no token:read rule covers exactly as a missing one: 404', async () => {
    const token = await vault.given({ type: 'token', data: 'x', containers: ['/hr/'] });
    const uncovered = await whenRefused(vault.events, () => get(token.id, [rule(1, '/pci/', 'reveal', 'token:read'), rule(2, '/', 'reveal', 'token:search')]));
    const missing = await whenRefused(vault.events, () => get(randomUUID(), [rule(1, '/', 'reveal', 'token:read')]));
    expect([uncovered.error.kind, uncovered.error.message]).toEqual([missing.error.kind, missing.error.message]);
    expect(uncovered.error.kind).toBe('not_found');
    expect([...uncovered.recorded, ...missing.recorded]).toEqual([]);
  });
});
