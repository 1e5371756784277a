// DetokenizeHandler on the embedded stores, with the real Liquid engine and crypto: each token shown as the caller's
// token:read rule does, a reveal recorded as an access before the answer, and a token no rule covers answered exactly
// as a missing one.
import { randomUUID } from 'node:crypto';
import { TOKEN_NOT_FOUND_MESSAGE, type AccessRule, type DomainError } from '@vault/domain';
import { rule, typesOf, whenRun } from '../shared/use-case.builders';
import { openTokenVault, REVEAL_ALL, type TokenVault } from '../tokens/token-vault.builders';
import { DetokenizeHandler, DetokenizeQuery } from './detokenize';
import { Detokenizer } from './detokenizer';

const SSN = '123-45-6789';
const CARD = '4242424242424242';

describe('DetokenizeHandler', () => {
  let vault: TokenVault;
  let detokenizer: DetokenizeHandler;
  let tenantId: string;

  beforeAll(async () => {
    vault = await openTokenVault('detokenize');
    detokenizer = new DetokenizeHandler(new Detokenizer(vault.index, vault.crypto, vault.engine), vault.access);
  });
  beforeEach(() => {
    tenantId = vault.newTenant();
  });
  afterAll(() => vault.close());

  const detokenize = (body: unknown, rules: AccessRule[] = REVEAL_ALL, tenant = tenantId) => detokenizer.execute(new DetokenizeQuery(vault.caller(rules, tenant), body));
  const failure = (promise: Promise<unknown>) => promise.then(() => Promise.reject(new Error('accepted')), (error: unknown) => error as DomainError);
  const created = async (body: object) => (await vault.given(body)).id;

  it('records one reveal per distinct token shown in plaintext, before it answers', async () => {
    const ssn = await created({ type: 'social_security_number', data: SSN });
    const card = await created({ type: 'card_number', data: CARD, containers: ['/pci/'] });
    const rules = [rule(1, '/pci/', 'mask', 'token:read'), rule(2, '/', 'reveal', 'token:read')];
    const { answer, recorded } = await whenRun(vault.events, () => detokenize({ a: `{{ ${ssn} }}`, b: `{{ ${ssn} }}`, c: `{{ ${card} }}` }, rules));
    expect(answer).toEqual({ a: SSN, b: SSN, c: 'XXXXXXXXXXXX4242' });
    expect(typesOf(recorded)).toEqual(['AccessRecorded']);
    expect(recorded[0].data).toMatchObject({ entity_id: ssn, operation: 'reveal', via: 'detokenize' });
  });

  it('replaces each expression by the token as the caller\'s token:read rule shows it', async () => {
    const ssn = await created({ type: 'social_security_number', data: SSN });
    const card = await created({ type: 'token', data: { number: CARD, exp: 12 }, containers: ['/cards/'] });
    const rules = [rule(1, '/pii/', 'mask', 'token:read'), rule(2, '/', 'reveal', 'token:read')];
    const answer = await detokenize({ ssn: `{{ ${ssn} }}`, card: `{{ ${card} }}`, number: `{{ ${card} | json: '$.number' | reveal_last: 4 }}`, text: `exp {{ ${card} | json: '$.exp' }}` }, rules);
    expect(answer).toEqual({ ssn: 'XXX-XX-6789', card: { number: CARD, exp: 12 }, number: 'XXXXXXXXXXXX4242', text: 'exp 12' });
  });

  it('answers a token that does not exist and one no rule covers with the same 400', async () => {
    const hidden = await created({ type: 'token', data: 'secret', containers: ['/hidden/'] });
    const rules = [rule(1, '/visible/', 'reveal', 'token:read')];
    const missing = await failure(detokenize({ a: `{{ ${randomUUID()} }}` }, rules));
    const uncovered = await failure(detokenize({ a: `{{ ${hidden} }}` }, rules));
    expect(missing).toMatchObject({ kind: 'validation', errors: { a: [TOKEN_NOT_FOUND_MESSAGE] } });
    expect([uncovered.kind, uncovered.message, uncovered.errors]).toEqual([missing.kind, missing.message, missing.errors]);
  });

  it('does not find another tenant\'s token', async () => {
    const id = await created({ type: 'token', data: 'mine' });
    expect(await failure(detokenize(`{{ ${id} }}`, REVEAL_ALL, randomUUID()))).toMatchObject({ errors: { body: [TOKEN_NOT_FOUND_MESSAGE] } });
  });

  it('reads a token whose data key was shredded (a delete in flight) as not found', async () => {
    const id = await created({ type: 'social_security_number', data: SSN });
    await vault.keys.destroy(tenantId, id);
    for (const transform of ['reveal', 'mask'] as const) {
      const error = await failure(detokenize({ x: `{{ ${id} }}` }, [rule(1, '/', transform, 'token:read')]));
      expect(error.errors).toEqual({ x: [TOKEN_NOT_FOUND_MESSAGE] });
    }
  });

  it('refuses with 403 a token its rule redacts, or masks without a mask', async () => {
    const ssn = await created({ type: 'social_security_number', data: SSN });
    const note = await created({ type: 'token', data: 'no mask here' });
    const redacted = await failure(detokenize({ a: { b: `{{ ${ssn} }}` } }, [rule(1, '/', 'redact', 'token:read')]));
    expect(redacted).toMatchObject({ kind: 'forbidden', message: 'The access rule that applies to the token at a.b does not show its data.' });
    expect(await failure(detokenize([`{{ ${note} }}`], [rule(1, '/', 'mask', 'token:read')]))).toMatchObject({ kind: 'forbidden' });
  });
});
