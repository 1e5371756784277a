import { DomainError, type FieldErrors } from '../shared/errors';
import { specEngine } from '../tokens/token.builders';
import { planTokenize, planTokenizeSteps, type TokenizePlan } from './tokenize.plan';

const options = { now: new Date('2024-05-01T00:00:00Z'), engine: specEngine };
const CARD = '4242424242424242';
const SSN = '123-45-6789';
const ID = 'B0B0B0B0-0000-4000-8000-000000000001';

const plan = (body: unknown): TokenizePlan => planTokenize(body, options);

const rejection = (body: unknown): DomainError => {
  try {
    plan(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return error as DomainError;
  }
  throw new Error('The body was accepted');
};
const errorsOf = (body: unknown): FieldErrors => rejection(body).errors!;

/** What the caller gets back when each token is "created" as a label of its place. */
const rebuiltWithPaths = (body: unknown): unknown => {
  const planned = plan(body);
  return planned.rebuild(planned.requests.map(({ path }) => `<${path}>`));
};

describe('what a tokenize body asks for', () => {
  it('a body that is one request is one token at the root', () => {
    const { requests } = plan({ type: 'card_number', data: CARD, metadata: { source: 'web' } });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ path: '', leaf: false });
    expect(requests[0].request.draft).toMatchObject({ type: 'card_number', data: CARD, metadata: { source: 'web' } });
  });

  it('walks arrays and objects: requests stay whole, primitive leaves become token tokens, null stays null', () => {
    const body = [
      { type: 'social_security_number', data: SSN },
      'plain text',
      42,
      false,
      null,
      { nested: ['deep'], empty: {}, none: [] },
    ];
    const { requests } = plan(body);
    expect(requests.map(({ path, leaf }) => [path, leaf])).toEqual([
      ['[0]', false],
      ['[1]', true],
      ['[2]', true],
      ['[3]', true],
      ['[5].nested[0]', true],
    ]);
    expect(requests[1].request.draft).toMatchObject({ type: 'token', data: 'plain text', containers: ['/general/high/'] });
    expect(requests[3].request.draft.data).toBe(false);
    expect(rebuiltWithPaths(body)).toEqual(['<[0]>', '<[1]>', '<[2]>', '<[3]>', null, { nested: ['<[5].nested[0]>'], empty: {}, none: [] }]);
  });

  it('does not walk into a request: its data is the token data, whatever its shape', () => {
    const { requests } = plan({ person: { type: 'token', data: { name: 'Ada', tags: ['x'] } } });
    expect(requests.map((r) => r.path)).toEqual(['person']);
    expect(requests[0].request.draft.data).toEqual({ name: 'Ada', tags: ['x'] });
  });

  it('takes an object with own type and data as a request whatever their values, and any other object as a container', () => {
    expect(errorsOf({ type: 5, data: 'x' })).toEqual({ type: [expect.stringContaining('type must be one of')] });
    expect(plan({ type: 'token' }).requests.map((r) => [r.path, r.leaf])).toEqual([['type', true]]);
    expect(plan({ data: 'x', kind: 'token' }).requests.map((r) => r.path)).toEqual(['data', 'kind']);
  });

  it('keeps `__proto__` keys as keys, in paths and in the rebuilt body', () => {
    const body = JSON.parse('{"__proto__":"x","a":{"__proto__":{"type":"token","data":1}}}');
    const rebuilt = rebuiltWithPaths(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(rebuilt)).toBe(Object.prototype);
    expect(JSON.stringify(rebuilt)).toBe('{"__proto__":"<__proto__>","a":{"__proto__":"<a.__proto__>"}}');
  });

  it('refuses to rebuild with a result count other than the request count', () => {
    expect(() => plan(['a', 'b']).rebuild(['only one'])).toThrow(/needs 2 results, got 1/);
  });
});

describe('one 400 for every bad request, before anything is created', () => {
  it('names each bad path: array index or key path, then the field', () => {
    const errors = errorsOf([
      { type: 'card_number', data: '1234' },
      'fine',
      { type: 'nope', data: 1 },
      { card: { number: { type: 'bogus', data: CARD } } },
    ]);
    expect(Object.keys(errors).sort()).toEqual(['[0].data', '[2].type', '[3].card.number.type']);
    expect(errors['[0].data']).toEqual([expect.stringMatching(/^data must be /)]);
    expect(JSON.stringify(errors)).not.toContain('1234');
  });

  it('reports bare fields for a body that is one request', () => {
    const errors = errorsOf({ type: 'card_number', data: '1234', containers: ['bad'] });
    expect(Object.keys(errors).sort()).toEqual(['containers[0]', 'data']);
  });

  it('names nested fields of a request under its path', () => {
    const errors = errorsOf({ a: { type: 'token', data: 1, containers: ['/ok/', 'bad'], search_indexes: ['{{ nope'] } });
    expect(Object.keys(errors).sort()).toEqual(['a.containers[1]', 'a.search_indexes[0]']);
  });

  it('reports a leaf that is not acceptable data under the leaf path itself, without the data', () => {
    const secret = `S3cret-${'x'.repeat(70_000)}`;
    const errors = errorsOf({ notes: [secret] });
    expect(Object.keys(errors)).toEqual(['notes[0]']);
    expect(JSON.stringify(errors)).not.toContain('S3cret');
  });

  it('reports unknown properties with bounded, escaped keys', () => {
    const injected = `evil"]\nAlso: ${'z'.repeat(500)}`;
    const errors = errorsOf([{ type: 'token', data: 1, [injected]: true, constructor: 1 }]);
    const expected = `[0]["evil\\"]\\u000AAlso: ${'z'.repeat(87)}"…]`;
    expect(errors).toEqual({
      [expected]: [`${expected} is not an allowed property.`],
      '[0].constructor': ['[0].constructor is not an allowed property.'],
    });
  });

  it('keeps plain metadata keys as POST /tokens writes them, and bounds odd ones', () => {
    const errors = errorsOf({ a: { type: 'token', data: 1, metadata: { 'k.v': 5, ['bad key'.repeat(50)]: 'v' } } });
    expect(Object.keys(errors).sort()).toEqual(['a.metadata.k.v', `a.metadata["${'bad key'.repeat(50).slice(0, 100)}"…]`].sort());
  });

  it('refuses two requests with the same custom id, naming the second', () => {
    const errors = errorsOf({ a: { type: 'token', data: 1, id: ID }, b: [{ type: 'token', data: 2, id: ID.toLowerCase() }] });
    expect(errors).toEqual({ 'b[0].id': ['id is also the id of the request at a.'] });
  });
});

describe('bounds', () => {
  it('takes 100 tokens and refuses 101 with one 400 on body', () => {
    expect(plan(Array(100).fill('x')).requests).toHaveLength(100);
    const body = { leaves: Array(60).fill(1), requests: Array(41).fill({ type: 'nope', data: 1 }) };
    expect(errorsOf(body)).toEqual({ body: ['A tokenize request creates at most 100 tokens.'] });
  });

  it('walks 64 levels of containers and refuses the 65th, naming its path', () => {
    const nested = (levels: number): unknown => {
      let body: unknown = 'leaf';
      for (let i = 0; i < levels; i++) body = [body];
      return body;
    };
    expect(plan(nested(64)).requests[0].path).toBe('[0]'.repeat(64));
    expect(errorsOf(nested(65))).toEqual({ ['[0]'.repeat(64)]: ['The body must not nest deeper than 64 levels.'] });
    expect(errorsOf(nested(100_000))).toEqual({ ['[0]'.repeat(64)]: ['The body must not nest deeper than 64 levels.'] });
  });

  it.each([['text'], [12], [true], [null]])('refuses a body that is %j', (body) => {
    expect(errorsOf(body)).toEqual({ body: [expect.stringMatching(/^The body must be a token create request, an array or an object, not /)] });
  });

  it('takes empty arrays and objects as bodies without tokens', () => {
    expect(plan([]).rebuild([])).toEqual([]);
    expect(plan({}).rebuild([])).toEqual({});
  });
});

describe('in steps', () => {
  it('yields once per token, after checking the whole body, and returns the plan planTokenize returns', () => {
    const body = { a: [{ type: 'social_security_number', data: SSN }, 'x'], b: 3 };
    const steps = planTokenizeSteps(body, options);
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    expect(yields).toBe(3);
    expect(step.value.requests).toEqual(plan(body).requests);
  });

  it('refuses a body over the bounds at the first step, before any request is validated', () => {
    const steps = planTokenizeSteps({ ok: { type: 'nope', data: 1 }, many: Array(101).fill(1) }, options);
    expect(() => steps.next()).toThrow(expect.objectContaining({ errors: { body: ['A tokenize request creates at most 100 tokens.'] } }));
  });
});
