import fc from 'fast-check';
import { DomainError } from '../shared/errors';
import { specEngine } from '../tokens/token.builders';
import { isTokenRequest, MAX_TOKENIZE_TOKENS, planTokenize } from './tokenize.plan';

const options = { now: new Date('2024-05-01T00:00:00Z'), engine: specEngine };

// Keys people send, and keys that try to break paths or prototypes; never `type`/`data`, which would make a request.
const key = fc
  .oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('__proto__', 'constructor', 'a.b', 'first name', '0', '', 'x"]\n', '[1]', '\u202E', 'card-number'),
  )
  .filter((k) => k !== 'type' && k !== 'data');
const leaf = fc.oneof(fc.string({ maxLength: 20 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const request = fc.record({ type: fc.constant('token'), data: fc.jsonValue({ maxDepth: 2 }).filter((data) => data !== null) });

const tree = (width: number) =>
  fc.letrec<{ node: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, leaf, request, tie('array'), tie('object')),
    array: fc.array(tie('node'), { maxLength: width }),
    object: fc.dictionary(key, tie('node'), { maxKeys: width }),
  }));
const body = (width: number) => fc.oneof(tree(width).array, tree(width).object, request);

/** The tokens a body asks for, counted the obvious way. */
const tokenCount = (value: unknown): number => {
  if (value === null) return 0;
  if (typeof value !== 'object' || isTokenRequest(value)) return 1;
  return Object.values(value).reduce<number>((sum, item) => sum + tokenCount(item), 0);
};

describe('tokenize plan properties', () => {
  it('rebuilding with each request as its own result gives the body back', () => {
    fc.assert(
      fc.property(body(6), (input) => {
        fc.pre(tokenCount(input) <= MAX_TOKENIZE_TOKENS);
        const plan = planTokenize(input, options);
        expect(plan.rebuild(plan.requests.map((r) => r.source))).toEqual(input);
      }),
      { numRuns: 1000 },
    );
  });

  it('gives every token its own path', () => {
    fc.assert(
      fc.property(body(6), (input) => {
        fc.pre(tokenCount(input) <= MAX_TOKENIZE_TOKENS);
        const paths = planTokenize(input, options).requests.map((r) => r.path);
        expect(new Set(paths).size).toBe(paths.length);
      }),
      { numRuns: 1000 },
    );
  });

  it('plans every token of a body of at most 100, and refuses any larger body with one 400 on body', () => {
    fc.assert(
      fc.property(body(40), (input) => {
        const count = tokenCount(input);
        let planned;
        try {
          planned = planTokenize(input, options);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).errors).toEqual({ body: [`A tokenize request creates at most ${MAX_TOKENIZE_TOKENS} tokens.`] });
          expect(count).toBeGreaterThan(MAX_TOKENIZE_TOKENS);
          return;
        }
        expect(planned.requests).toHaveLength(count);
        expect(count).toBeLessThanOrEqual(MAX_TOKENIZE_TOKENS);
      }),
      { numRuns: 300 },
    );
  });
});
