import fc from 'fast-check';
import { DomainError, type FieldErrors } from '../shared/errors';
import { isUuid } from '../shared/uuid';
import { specEngine } from '../tokens/token.builders';
import { MAX_DETOKENIZE_EXPRESSIONS, planDetokenize, type DetokenizePlan } from './detokenize.plan';

const ID = 'B0B0B0B0-0000-4000-8000-000000000001';
const id = ID.toLowerCase();
const ID2 = 'c1c1c1c1-0000-4000-8000-000000000002';

const summary = (plan: DetokenizePlan) => plan.expressions.map(({ path, tokenId, filters, whole }) => [path, tokenId, filters, whole]);

const errorsOf = (body: unknown, engine = specEngine): FieldErrors => {
  try {
    planDetokenize(body, { engine });
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors!;
  }
  throw new Error('The body was accepted');
};

describe('what a detokenize body asks for', () => {
  const body = {
    card: `{{ ${ID} }}`,
    note: `Card {{ ${ID} }} for {{ token: ${ID2} | last4 }}.`,
    n: 5,
    list: [`{{ ${ID} | upcase }}`, 'plain {{ name }}'],
    none: null,
  };

  it('finds every expression with its path, id, filters and whether it is the whole string', () => {
    const plan = planDetokenize(body);
    expect(summary(plan)).toEqual([
      ['card', id, null, true],
      ['note', id, null, false],
      ['note', ID2, 'last4', false],
      ['list[0]', id, 'upcase', true],
    ]);
    expect(plan.tokenIds).toEqual([id, ID2]);
  });

  it('puts whole-string values in as they are and embedded ones as their string form, keeping everything else', () => {
    const rendered = planDetokenize(body).render([{ number: '4242', exp: 12 }, { number: '4242' }, '6789', 'ADA']);
    expect(rendered).toEqual({
      card: { number: '4242', exp: 12 },
      note: 'Card {"number":"4242"} for 6789.',
      n: 5,
      list: ['ADA', 'plain {{ name }}'],
      none: null,
    });
  });

  it.each([
    [`{{ ${ID} }}`, [42], 42],
    [`x{{ ${ID} }}`, [42], 'x42'],
    [`{{ ${ID} }}{{ ${ID} }}`, [true, null], 'true'],
    [5, [], 5],
    [null, [], null],
  ])('renders the body %j with %j as %j', (input, values, expected) => {
    expect(planDetokenize(input).render(values)).toEqual(expected);
  });

  it('names a body that is itself an expression `body`', () => {
    expect(summary(planDetokenize(`{{ ${ID} }}`))).toEqual([['body', id, null, true]]);
    expect(errorsOf('{{ token: x }}')).toEqual({ body: [expect.stringContaining('expects a token id')] });
  });

  it('keeps a part without expressions as the very value it was given', () => {
    const untouched = { a: ['x', { b: 1 }] };
    const rendered = planDetokenize({ untouched, e: `{{ ${ID} }}` }).render(['v']) as Record<string, unknown>;
    expect(rendered.untouched).toBe(untouched);
  });

  it('keeps `__proto__` keys as keys', () => {
    const rendered = planDetokenize(JSON.parse(`{"__proto__":"{{ ${ID} }}"}`)).render(['v']);
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(JSON.stringify(rendered)).toBe('{"__proto__":"v"}');
  });

  it('refuses to render with a value count other than the expression count', () => {
    expect(() => planDetokenize(`{{ ${ID} }}`).render([])).toThrow(/needs 1 values, got 0/);
  });
});

describe('one 400 for every bad expression, before any token is read', () => {
  it('names each path whose string holds an expression that does not parse', () => {
    const errors = errorsOf({ a: '{{ token: not-a-uuid }}', b: ['fine', `x {{ ${ID} | }}`], c: `{{ ${ID} }}` });
    expect(Object.keys(errors)).toEqual(['a', 'b[1]']);
    expect(errors['b[1]']).toEqual(['The detokenization expression at character 3 expects a filter name (at character 45).']);
  });

  it('with an engine, names each path whose filters the engine does not know', () => {
    const errors = errorsOf({ ok: `{{ ${ID} | upcase }}`, bad: `{{ ${ID} | nope }}` });
    expect(errors).toEqual({
      bad: ['The filters of a detokenization expression do not parse: an unknown filter (line 1, column 1).'],
    });
  });

  it(`takes ${MAX_DETOKENIZE_EXPRESSIONS} expressions, counting those inside longer strings, and refuses more`, () => {
    const pair = `{{ ${ID} }} and {{ ${ID2} }}`;
    expect(planDetokenize(Array(50).fill(pair)).expressions).toHaveLength(100);
    expect(errorsOf([...Array(50).fill(pair), `{{ ${ID} }}`])).toEqual({
      body: ['A body may hold at most 100 detokenization expressions.'],
    });
  });

  it('walks 64 levels of containers and refuses the 65th, naming its path', () => {
    let body: unknown = `{{ ${ID} }}`;
    for (let i = 0; i < 64; i++) body = { k: body };
    expect(planDetokenize(body).expressions[0].path).toBe(Array(64).fill('k').join('.'));
    expect(errorsOf({ k: body })).toEqual({ [Array(64).fill('k').join('.')]: ['The body must not nest deeper than 64 levels.'] });
  });
});

// Strings made of the pieces expressions are made of: near misses of valid syntax, and valid ones.
const FRAGMENTS = [
  ID, ID2, '{{', '}}', '{', '}', ' ', 'token:', 'TOKEN :', '|', ':', ',', "'", '"', '$.a', 'last4', 'upcase', '4', '-', 'x', '\\', '\n',
  `{{ ${ID}`, `{{token:${ID2}`, ' | last4', " | json: '$.a'", ' | reveal_last: 4, "*"', ' }}', `{{ ${ID} }}`,
  `{{ ${ID} | last4 }}`, `{{ token: ${ID2} | json: '$.a' | reveal_last: 4, "*" }}`,
];
const fragmentText = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 25 }).map((parts) => parts.join(''));

describe('detokenize plan properties', () => {
  it('any string is planned or refused with a 400 naming `body`', () => {
    fc.assert(
      fc.property(fc.oneof(fragmentText, fc.string({ unit: 'binary', maxLength: 60 })), (text) => {
        let plan;
        try {
          plan = planDetokenize(text);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect(Object.keys((error as DomainError).errors!)).toEqual(['body']);
          return;
        }
        for (const { tokenId } of plan.expressions) expect(isUuid(tokenId) && tokenId === tokenId.toLowerCase()).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('an accepted string rendered with each expression written out again plans to the same expressions', () => {
    fc.assert(
      fc.property(fragmentText, (text) => {
        let plan;
        try {
          plan = planDetokenize(text);
        } catch {
          return;
        }
        const written = plan.expressions.map(({ tokenId, filters }) => `{{ token: ${tokenId}${filters ? ` | ${filters}` : ''} }}`);
        expect(summary(planDetokenize(plan.render(written)))).toEqual(summary(plan));
      }),
      { numRuns: 2000 },
    );
  });

  it('a string without an expression renders as itself', () => {
    fc.assert(
      fc.property(fc.oneof(fragmentText, fc.string()), (text) => {
        fc.pre(!/\{\{\s*(token\s*:|[0-9a-f]{8}-)/i.test(text));
        expect(planDetokenize({ text }).render([])).toEqual({ text });
      }),
      { numRuns: 2000 },
    );
  });
});
