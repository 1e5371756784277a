// ReactHandler on the embedded stores, with the real crypto, Liquid engine and tokenization, and a runtime that records
// what it is handed and answers as told: what the code receives (the data behind a masked token, the opened
// configuration), what runs nothing (a refused args check, an unknown reactor), and how a runtime's outcome becomes the
// answer.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  AesGcmTokenCrypto,
  applicationsTable,
  LiquidExpressionEngine,
  SqliteApplicationReadModel,
  SqliteKeyStore,
  SqliteTokenSearchIndex,
  tokensTable,
  uuidGenerator,
} from '@vault/adapters';
import { DomainError, formulaStream, reactorFormulaDecider, type AccessRule, type RequestParameterElement } from '@vault/domain';
import type { ReactorRequest, ReactorResult, ReactorRuntime } from '../ports/reactor-runtime';
import { tokensProjection } from '../projections/tokens.projection';
import { openEmbedded, type Embedded } from '@vault/test-support/embedded-stores';
import { ReactCommand, ReactHandler } from './react';
import { CreateReactorCommand, CreateReactorHandler } from './create-reactor';
import { Detokenizer } from '../detokenize/detokenizer';
import { TokenizeCommand, TokenizeHandler } from '../tokenize/tokenize';
import { TokenizeRequests } from '../tokenize/tokenize-requests';
import type { Caller } from '../shared/use-case';
import { whenRun } from '../shared/use-case.builders';
import { GroupCommitAccessLog } from '../audit/group-commit-access-log';

const SECRET = 'sk_live_4f9a0c1e7b';
const CARD = '4242424242424242';
const USE = ['token:create', 'token:read', 'token:use'];
const MASK_ALL: AccessRule[] = [{ priority: 1, container: '/', transform: 'mask', permissions: USE }];

/** Answers each run with `next` and keeps what it was handed. */
class RecordingRuntime implements ReactorRuntime {
  readonly runs: { code: string; request: ReactorRequest }[] = [];
  next: ReactorResult = { ok: true, raw: { ok: true }, tokenize: null };

  async run(code: string, request: ReactorRequest): Promise<ReactorResult> {
    this.runs.push({ code, request });
    return this.next;
  }
}

describe('ReactHandler', () => {
  let vault: Embedded;
  let keys: SqliteKeyStore;
  let crypto: AesGcmTokenCrypto;
  let index: SqliteTokenSearchIndex;
  let tokenizer: TokenizeHandler;
  let runtime: RecordingRuntime;
  let handler: ReactHandler;
  let tenantId: string;

  beforeAll(async () => {
    vault = await openEmbedded({ name: 'react', collections: [tokensTable, applicationsTable], projections: [tokensProjection] });
    keys = SqliteKeyStore.open(vault.dir);
    crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
    const engine = new LiquidExpressionEngine();
    index = new SqliteTokenSearchIndex(vault.model);
    const requests = new TokenizeRequests(vault.runner(), index, crypto, engine, uuidGenerator, new GroupCommitAccessLog(vault.events));
    tokenizer = new TokenizeHandler(requests);
    runtime = new RecordingRuntime();
    const access = new GroupCommitAccessLog(vault.events);
    handler = new ReactHandler(vault.events, new SqliteApplicationReadModel(vault.model), crypto, new Detokenizer(index, crypto, engine), requests, runtime, access);
  });
  beforeEach(() => {
    tenantId = randomUUID();
    runtime.runs.length = 0;
    runtime.next = { ok: true, raw: { ok: true }, tokenize: null };
  });
  afterAll(async () => {
    await index.close();
    keys.close();
    await vault.close();
  });

  const caller = (accessRules: AccessRule[] = MASK_ALL, tenant = tenantId): Caller => ({
    principal: { applicationId: randomUUID(), tenantId: tenant, type: 'private', permissions: new Set(USE), accessRules },
    now: new Date(),
    requestId: `req-${randomUUID()}`,
  });
  /** A reactor on a private formula recorded a moment ago: nothing of either is in a read model. */
  const aReactor = async (requestParameters: Pick<RequestParameterElement, 'name' | 'type'>[] = [], code = 'module.exports = async () => ({ raw: 1 });') => {
    const formulaId = randomUUID();
    const input = {
      name: 'Gateway',
      description: null,
      icon: null,
      type: 'private' as const,
      code,
      configuration: [{ name: 'api_key', description: null, type: 'string' as const }],
      request_parameters: requestParameters.map((p) => ({ ...p, description: null, optional: false })),
    };
    const ctx = { tenantId, actor: { type: 'application' as const, id: 'admin' }, now: new Date(), correlationId: 'c' };
    await vault.runner(vault.events, { waiter: { waitFor: async () => true } }).run(reactorFormulaDecider, formulaStream(formulaId), { type: 'CreateReactorFormula', data: { id: formulaId, input } }, ctx);
    const reactor = await new CreateReactorHandler(vault.runner(vault.events, { waiter: { waitFor: async () => true } }), vault.events, crypto, uuidGenerator).execute(
      new CreateReactorCommand(caller(), { name: 'Charge', formula: { id: formulaId }, configuration: { api_key: SECRET } }),
    );
    return { id: reactor.id, code };
  };
  const react = (id: string, body: unknown, as = caller()) => handler.execute(new ReactCommand(as, id, body));
  const rejection = async (promise: Promise<unknown>): Promise<DomainError> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
    return error;
  };

  it("hands the code its formula's current code, the data behind a masked token, and the opened configuration", async () => {
    const [card] = (await tokenizer.execute(new TokenizeCommand(caller(), [{ type: 'card_number', data: CARD, mask: '{{ data | last4 }}' }]))) as { id: string; data: string }[];
    expect(card.data).toBe('4242');
    const reactor = await aReactor([{ name: 'card.number', type: 'string' }]);
    runtime.next = { ok: true, raw: { charged: true }, tokenize: null };
    const answer = await react(reactor.id, { args: { card: { number: `{{ ${card.id} }}` }, other: 1 } });
    expect(answer).toEqual({ tokens: null, raw: { charged: true } });
    expect(runtime.runs).toEqual([{ code: reactor.code, request: { args: { card: { number: CARD }, other: 1 }, configuration: { api_key: SECRET } } }]);
  });

  it('records each token use and the invocation as accesses before the code runs', async () => {
    const [card] = (await tokenizer.execute(new TokenizeCommand(caller(), [{ type: 'card_number', data: CARD }]))) as { id: string }[];
    const reactor = await aReactor();
    const { recorded } = await whenRun(vault.events, () => react(reactor.id, { args: { card: `{{ ${card.id} }}` } }));
    expect(recorded.map(({ type, data }) => [type, data])).toEqual([
      ['AccessRecorded', expect.objectContaining({ entity_type: 'token', entity_id: card.id, operation: 'use', via: 'react', reactor_id: reactor.id })],
      ['AccessRecorded', expect.objectContaining({ entity_type: 'reactor', entity_id: reactor.id, operation: 'invoke', via: 'react' })],
    ]);
  });

  it.each<[string, unknown, Record<string, string[]>]>([
    ['a missing required parameter', { args: {} }, { 'args.card.number': ['args.card.number is required.'] }],
    ['a parameter of another type', { args: { card: { number: 4111 } } }, { 'args.card.number': ['args.card.number must be a string.'] }],
    ['an unknown token', { args: { card: { number: `{{ ${randomUUID()} }}` } } }, { 'args.card.number': [expect.any(String) as unknown as string] }],
    ['a property other than args', { args: {}, code: 'x' }, { code: ['code is not an allowed property.'] }],
  ])('runs nothing for %s: one 400 naming the path', async (_title, body, errors) => {
    const reactor = await aReactor([{ name: 'card.number', type: 'string' }]);
    const error = await rejection(react(reactor.id, body));
    expect(error.kind).toBe('validation');
    expect(error.errors).toEqual(errors);
    expect(runtime.runs).toEqual([]);
  });

  it('runs nothing when a caller whose read rule masks a token shapes it: 403 naming each args path', async () => {
    const [card] = (await tokenizer.execute(new TokenizeCommand(caller(), [{ type: 'card_number', data: CARD }]))) as { id: string }[];
    const reactor = await aReactor();
    const error = await rejection(react(reactor.id, { args: { a: `{{ ${card.id} | slice: 0, 4 }}`, b: `x{{ ${card.id} }}`, c: `{{ ${card.id} }}` } }));
    expect(error.kind).toBe('forbidden');
    expect(Object.keys(error.errors!)).toEqual(['args.a', 'args.b']);
    expect(JSON.stringify(error)).not.toContain(CARD.slice(0, 6));
    expect(runtime.runs).toEqual([]);
  });

  it('shows tokens made from a masked token by the caller\'s read rule, and refuses one its rules would reveal', async () => {
    const pciMasked = caller([
      { priority: 1, container: '/pci/', transform: 'mask', permissions: USE },
      { priority: 2, container: '/', transform: 'reveal', permissions: USE },
    ]);
    const [card] = (await tokenizer.execute(new TokenizeCommand(pciMasked, [{ type: 'card_number', data: CARD }]))) as { id: string }[];
    const reactor = await aReactor();
    runtime.next = { ok: true, raw: null, tokenize: { copy: { type: 'token', data: CARD, containers: ['/general/'] } } };
    const refused = await rejection(react(reactor.id, { args: { card: `{{ ${card.id} }}` } }, pciMasked));
    expect(refused.kind).toBe('forbidden');
    // The keys of `tokenize` may come from the data: a capped answer names none.
    expect(Object.keys(refused.errors!)).toEqual(['tokenize']);
    expect(refused.message).not.toContain('copy');
    runtime.next = { ok: true, raw: null, tokenize: { copy: { type: 'social_security_number', data: '078-05-1120', containers: ['/pci/copies/'] } } };
    const answer = (await react(reactor.id, { args: { card: `{{ ${card.id} }}` } }, pciMasked)) as { tokens: Record<string, unknown>[] };
    // An array of id-only views in document order: no data, no mask, nothing computed from the data.
    expect(answer.tokens).toEqual([
      { id: expect.any(String), type: 'social_security_number', containers: ['/pci/copies/'], metadata: {}, created_by: expect.any(String), created_at: expect.any(String) },
    ]);
    runtime.next = { ok: true, raw: null, tokenize: { a: 'not', b: { type: 'card_number', data: 'not a card', containers: ['/pci/copies/'] } } };
    const invalid = await rejection(react(reactor.id, { args: { card: `{{ ${card.id} }}` } }, pciMasked));
    expect([invalid.kind, invalid.errors]).toEqual(['unprocessable', { reactor: ["The reactor's tokenize result is not valid."] }]);
    // Without token expressions in args, the caller's own reveal rule shows what it sent, as before.
    runtime.next = { ok: true, raw: null, tokenize: { copy: { type: 'token', data: 'plain', containers: ['/general/'] } } };
    const plain = (await react(reactor.id, { args: {} }, pciMasked)) as { tokens: { copy: Record<string, unknown> } };
    expect(plain.tokens.copy).toMatchObject({ data: 'plain' });
  });

  it('answers a token no token:use rule covers exactly as an unknown one', async () => {
    const [token] = (await tokenizer.execute(new TokenizeCommand(caller(), ['x']))) as { id: string }[];
    const reactor = await aReactor();
    const readOnly = caller([{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'] }]);
    const uncovered = await rejection(react(reactor.id, { args: { a: `{{ ${token.id} }}` } }, readOnly));
    const missing = await rejection(react(reactor.id, { args: { a: `{{ ${randomUUID()} }}` } }, readOnly));
    expect([uncovered.kind, uncovered.errors]).toEqual([missing.kind, missing.errors]);
    expect(runtime.runs).toEqual([]);
  });

  it("is a 404 for an unknown reactor and for another tenant's", async () => {
    const reactor = await aReactor();
    expect((await rejection(react(randomUUID(), {}))).kind).toBe('not_found');
    expect((await rejection(react(reactor.id, {}, caller(MASK_ALL, randomUUID())))).kind).toBe('not_found');
    expect(runtime.runs).toEqual([]);
  });

  it('turns a failed run into unprocessable with errors.reactor, and a busy one into unavailable with its Retry-After', async () => {
    const reactor = await aReactor();
    runtime.next = { ok: false, kind: 'failed', message: 'boom' };
    const failed = await rejection(react(reactor.id, {}));
    expect([failed.kind, failed.errors]).toEqual(['unprocessable', { reactor: ['boom'] }]);
    runtime.next = { ok: false, kind: 'busy', message: 'Too many reactor invocations are waiting; try again later.', retryAfterSeconds: 10 };
    const busy = await rejection(react(reactor.id, {}));
    expect([busy.kind, busy.retryAfterSeconds]).toEqual(['unavailable', 10]);
  });

  it("tokenizes the result's tokenize as the caller, named tokenize.<path> when refused, nothing created then", async () => {
    const reactor = await aReactor();
    runtime.next = { ok: true, raw: null, tokenize: { a: { type: 'token', data: 'one' }, b: ['two'] } };
    const answer = (await react(reactor.id, {})) as { tokens: { a: { id: string; type: string }; b: { id: string }[] } };
    expect(answer.tokens.a).toMatchObject({ type: 'token', id: expect.any(String) });
    expect(answer.tokens.b).toEqual([expect.objectContaining({ type: 'token' })]);

    const pciOnly = caller([{ priority: 1, container: '/pci/', transform: 'reveal', permissions: USE }]);
    const id = randomUUID();
    runtime.next = { ok: true, raw: null, tokenize: { card: { id, type: 'card_number', data: CARD }, note: { type: 'token', data: 'x', containers: ['/general/'] } } };
    const refused = await rejection(react(reactor.id, {}, pciOnly));
    expect(refused.kind).toBe('forbidden');
    expect(Object.keys(refused.errors ?? {})).toEqual(['tokenize.note.containers']);
    expect(await index.get(tenantId, id, Date.now())).toBeNull();

    runtime.next = { ok: true, raw: null, tokenize: { bad: { type: 'no_such_type', data: 'x' } } };
    const invalid = await rejection(react(reactor.id, {}));
    expect(invalid.kind).toBe('unprocessable');
    expect(Object.keys(invalid.errors ?? {})[0]).toBe('reactor');
  });

  // POST /tokenize answers a bare value with a 400 on body; the reactor's tokenize is tokenized exactly as it.
  it.each<[string, unknown]>([
    ['a string', 'bare string'],
    ['a number', 42],
    ['a boolean', true],
  ])('answers a tokenize that is %s, which POST /tokenize refuses, as the code\'s fault: 422, nothing created', async (type, tokenize) => {
    const reactor = await aReactor();
    runtime.next = { ok: true, raw: null, tokenize };
    const invalid = await rejection(react(reactor.id, {}));
    expect([invalid.kind, invalid.errors]).toEqual([
      'unprocessable',
      {
        reactor: ['The reactor returned a tokenize that is not a valid tokenize body; the other errors name its paths.'],
        tokenize: [`tokenize must be a token create request, an array or an object, not ${type}.`],
      },
    ]);
    expect((await index.search({ tenantId, query: null, now: Date.now(), page: 1, size: 10 })).total).toBe(0);
  });

  it('answers a bare tokenize with no path or type when args used a token the caller does not reveal', async () => {
    const [card] = (await tokenizer.execute(new TokenizeCommand(caller(), [{ type: 'card_number', data: CARD }]))) as { id: string }[];
    const reactor = await aReactor();
    runtime.next = { ok: true, raw: null, tokenize: CARD };
    const invalid = await rejection(react(reactor.id, { args: { card: `{{ ${card.id} }}` } }));
    expect([invalid.kind, invalid.errors]).toEqual(['unprocessable', { reactor: ["The reactor's tokenize result is not valid."] }]);
  });
});
