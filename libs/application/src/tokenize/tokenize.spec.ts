// TokenizeHandler on the embedded stores, with the real Liquid engine and crypto: one batch of creates per body,
// nothing written when any request is refused, deduplication as POST /tokens does it (also between the requests of one
// body), and each token shown as the caller's token:create rule does.
import { randomUUID } from 'node:crypto';
import { uuidGenerator } from '@vault/adapters';
import type { AccessRule, DomainError } from '@vault/domain';
import { rule, typesOf, whenRun } from '../shared/use-case.builders';
import { openTokenVault, REVEAL_ALL, type TokenVault } from '../tokens/token-vault.builders';
import type { TokenView } from '../tokens/token-view';
import { TokenizeCommand, TokenizeHandler } from './tokenize';
import { TokenizeRequests } from './tokenize-requests';

const SSN = '123-45-6789';
const CARD = '4242424242424242';

describe('TokenizeHandler', () => {
  let vault: TokenVault;
  let tokenize: TokenizeHandler;
  let tenantId: string;

  beforeAll(async () => {
    vault = await openTokenVault('tokenize');
    tokenize = new TokenizeHandler(new TokenizeRequests(vault.vault.runner(), vault.index, vault.crypto, vault.engine, uuidGenerator, vault.access));
  });
  beforeEach(() => {
    tenantId = vault.newTenant();
  });
  afterAll(() => vault.close());

  const caller = (rules: AccessRule[]) => vault.caller(rules);
  const run = (body: unknown, rules: AccessRule[] = REVEAL_ALL) => tokenize.execute(new TokenizeCommand(caller(rules), body));
  const failure = (promise: Promise<unknown>) => promise.then(() => Promise.reject(new Error('accepted')), (error: unknown) => error as DomainError);
  const createdEvents = async () => (await vault.events.readAll(null, 100_000)).filter((e) => e.type === 'TokenCreated' && e.metadata.tenant_id === tenantId);

  describe('tokenize', () => {
    it('creates every token of the body in one write and answers the body with each replaced by its token', async () => {
      const answer = (await run({
        card: { type: 'card_number', data: CARD },
        notes: ['first', 2, null, true],
        ssn: { type: 'social_security_number', data: SSN },
      })) as { card: TokenView; notes: [TokenView, TokenView, null, TokenView]; ssn: TokenView };
      expect(answer.card).toMatchObject({ type: 'card_number', data: CARD, containers: ['/pci/high/'] });
      expect(answer.notes.map((t) => t && t.data)).toEqual(['first', 2, null, true]);
      expect(answer.notes[0]).toMatchObject({ type: 'token', containers: ['/general/high/'] });
      expect(answer.ssn.data).toBe(SSN);
      const events = await createdEvents();
      expect(events.map((e) => (e.data as { id: string }).id)).toEqual([answer.card.id, answer.notes[0].id, answer.notes[1].id, answer.notes[3].id, answer.ssn.id]);
      // One transaction: consecutive positions in the log.
      expect(events.map((e) => Number(e.position.commit) - Number(events[0].position.commit))).toEqual([0, 1, 2, 3, 4]);
      // Read-your-writes: every token is in the read model when the answer comes.
      for (const token of [answer.card, answer.ssn]) expect(await vault.index.get(tenantId, token.id, Date.now())).not.toBeNull();
    });

    it('shows each token under the caller\'s token:create rule for it', async () => {
      const rules = [rule(1, '/pii/', 'reveal', 'token:create'), rule(2, '/pci/', 'mask', 'token:create'), rule(3, '/', 'redact', 'token:create')];
      const [ssn, card, note] = (await run([{ type: 'social_security_number', data: SSN }, { type: 'card_number', data: CARD }, 'note'], rules)) as TokenView[];
      expect([ssn.data, card.data, 'data' in note]).toEqual([SSN, 'XXXXXXXXXXXX4242', false]);
    });

    it('writes nothing when a request is invalid, and names every bad path in one 400', async () => {
      const error = await failure(run([{ type: 'card_number', data: CARD }, { type: 'card_number', data: '1234' }, { deep: { type: 'nope', data: 1 } }]));
      expect(error).toMatchObject({ kind: 'validation' });
      expect(Object.keys(error.errors!).sort()).toEqual(['[1].data', '[2].deep.type']);
      expect(await createdEvents()).toEqual([]);
    });

    it('writes nothing when a token\'s containers have no token:create rule, and names every such path in one 403', async () => {
      const rules = [rule(1, '/pii/', 'reveal', 'token:create')];
      const error = await failure(run({ ok: { type: 'social_security_number', data: SSN }, card: { type: 'card_number', data: CARD }, leaf: 'x' }, rules));
      expect(error).toMatchObject({ kind: 'forbidden' });
      expect(error.message).toBe('No access rule of this application grants token:create on the containers of the token at card (and 1 more, named in errors).');
      expect(Object.keys(error.errors!)).toEqual(['card.containers', 'leaf']);
      expect(await createdEvents()).toEqual([]);
    });

    it('names a body that is one uncovered request `body`', async () => {
      const error = await failure(run({ type: 'card_number', data: CARD }, [rule(1, '/pii/', 'reveal', 'token:create')]));
      expect(error.message).toMatch(/at body\.$/);
      expect(Object.keys(error.errors!)).toEqual(['containers']);
    });

    it('writes nothing when one custom id is taken, and names its path in the 409', async () => {
      const taken = randomUUID();
      await vault.given({ id: taken, type: 'token', data: 'first' });
      const before = await createdEvents();
      const error = await failure(run({ fresh: { type: 'token', data: 'a' }, again: { id: taken, type: 'token', data: 'b' } }));
      expect(error).toMatchObject({ kind: 'conflict', message: 'The id of the request at again is already taken in this tenant.' });
      expect(await createdEvents()).toEqual(before);
    });

    describe('deduplication', () => {
      it('returns an existing token the caller\'s token:create rules cover, under the rule for its containers', async () => {
        const existing = await vault.given({ type: 'social_security_number', data: SSN, containers: ['/ops/'] });
        const rules = [rule(1, '/ops/', 'mask', 'token:create'), rule(2, '/', 'reveal', 'token:create')];
        const [found, fresh] = (await run(
          [
            { type: 'social_security_number', data: '123456789', deduplicate_token: true },
            { type: 'social_security_number', data: SSN },
          ],
          rules,
        )) as TokenView[];
        expect(found).toMatchObject({ id: existing.id, data: 'XXX-XX-6789' });
        expect(fresh.id).not.toBe(existing.id);
      });

      it('creates a new token when the only match lies outside the caller\'s token:create rules', async () => {
        const hidden = await vault.given({ type: 'token', data: 'cust_42', containers: ['/secret/'] });
        const [token] = (await run([{ type: 'token', data: 'cust_42', containers: ['/mine/'], deduplicate_token: true }], [rule(1, '/mine/', 'reveal', 'token:create')])) as TokenView[];
        expect(token.id).not.toBe(hidden.id);
        expect(token.containers).toEqual(['/mine/']);
      });

      it("records a match it shows in plaintext as the caller's reveal, and creates nothing", async () => {
        const existing = await vault.given({ type: 'token', data: 'cust_7' });
        const { answer, recorded } = await whenRun(vault.events, () => run([{ type: 'token', data: 'cust_7', deduplicate_token: true }]));
        expect((answer as TokenView[])[0].id).toBe(existing.id);
        expect(typesOf(recorded)).toEqual(['AccessRecorded']);
        expect(recorded[0].data).toMatchObject({ entity_id: existing.id, operation: 'reveal', via: 'dedupe' });
      });

      it('finds an earlier request of the same body, as if the requests came one after another', async () => {
        const request = { type: 'card_number', data: CARD, deduplicate_token: true };
        const [first, second, plain] = (await run([request, request, { ...request, deduplicate_token: false }])) as TokenView[];
        expect(second).toBe(first);
        expect(plain.id).not.toBe(first.id);
        expect(await createdEvents()).toHaveLength(2);
      });
    });

    it('tokenizes as the principal of the command: another application\'s rules give another answer', async () => {
      const body = { type: 'social_security_number', data: SSN };
      expect(((await run(body, [rule(1, '/', 'mask', 'token:create')])) as TokenView).data).toBe('XXX-XX-6789');
      expect(((await run(body, REVEAL_ALL)) as TokenView).data).toBe(SSN);
    });

    it('answers an empty array or object without writing anything', async () => {
      expect(await run([])).toEqual([]);
      expect(await run({ nothing: null })).toEqual({ nothing: null });
      expect(await createdEvents()).toEqual([]);
    });
  });
});
