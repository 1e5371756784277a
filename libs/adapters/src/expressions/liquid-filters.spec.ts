import { ExpressionError, LiquidExpressionEngine } from './liquid-expression-engine';
import { FilterArgumentError, MAX_JSON_PATH_LENGTH, parseJsonPath, selectJsonPath } from './liquid-filters';

const engine = new LiquidExpressionEngine();
const SECRET = 'Sup3r-S3cret';
const PERSON = {
  name: SECRET,
  'first name': 'Ada',
  card: { number: '4242424242424242', exp: 12, active: false, note: null },
  ssn: '123-45-6789',
  items: ['a', 'b', { c: 'deep' }],
  ünï: 'unicode',
};

describe('the json filter', () => {
  it.each([
    ["{{ data | json: '$' }}", { a: 1 }, '{"a":1}'],
    ["{{ data | json: '$.name' }}", PERSON, SECRET],
    ["{{ data | json: '$.card.number' }}", PERSON, '4242424242424242'],
    ["{{ data | json: '$.card' }}", { card: { n: 1 } }, '{"n":1}'],
    ["{{ data | json: '$.card.exp' }}", PERSON, '12'],
    ["{{ data | json: '$.card.active' }}", PERSON, 'false'],
    ["{{ data | json: '$.card.note' }}", PERSON, ''],
    [`{{ data | json: "$['first name']" }}`, PERSON, 'Ada'],
    [`{{ data | json: '$["first name"]' }}`, PERSON, 'Ada'],
    [`{{ data | json: "$[ 'card' ][ 'exp' ]" }}`, PERSON, '12'],
    ["{{ data | json: '$.items[0]' }}", PERSON, 'a'],
    ["{{ data | json: '$.items[-1].c' }}", PERSON, 'deep'],
    ["{{ data | json: '$.items[-3]' }}", PERSON, 'a'],
    ["{{ data | json: '$[1]' }}", ['x', 'y'], 'y'],
    ["{{ data | json: '$.ünï' }}", PERSON, 'unicode'],
    ["{{ data | json: '$.ssn' | reveal_last: 4 }}", PERSON, 'XXX-XX-6789'],
    ["{{ data | json: '$.items' | size }}", PERSON, '3'],
  ])('%s', (expression, data, expected) => {
    expect(engine.evaluate(expression, data)).toBe(expected);
  });

  it.each([
    ['$.missing', PERSON],
    ['$.items[3]', PERSON],
    ['$.items[-4]', PERSON],
    ['$.name.first', PERSON],
    ['$[0]', PERSON],
    ['$.length', ['a']],
    ['$.length', 'text'],
    ['$.constructor', {}],
    ['$.toString', {}],
    ["$['__proto__']", {}],
    ['$.a', null],
  ])('%s selects nothing (case %#), which renders as nothing', (path, data) => {
    expect(selectJsonPath(data, parseJsonPath(path))).toBeNull();
    expect(engine.evaluate(`{{ data | json: "${path}" }}`, data)).toBe('');
  });

  it('selects a `__proto__` key that the data really has', () => {
    expect(engine.evaluate(`{{ data | json: "$['__proto__'].x" }}`, JSON.parse('{"__proto__":{"x":1}}'))).toBe('1');
  });

  it.each([
    [`$['it\\'s']`, [{ key: "it's" }]],
    [`$["a\\"b"]`, [{ key: 'a"b' }]],
    [`$['back\\\\slash']`, [{ key: 'back\\slash' }]],
    [`$['tab\\there']`, [{ key: 'tab\there' }]],
    [`$['\\u00e9']`, [{ key: 'é' }]],
    ['$.a_1[0][-2]', [{ key: 'a_1' }, { index: 0 }, { index: -2 }]],
    ['$', []],
  ])('parses %s', (path, steps) => {
    expect(parseJsonPath(path)).toEqual(steps);
  });
});

describe('json path errors name the syntax problem, never the data or the path', () => {
  it.each([
    ['number', 'json: the path must start with $ at character 1 of the path.'],
    ['$..name', 'json: descendant segments (..) are not supported at character 3'],
    ['$.*', 'json: expected a name at character 3'],
    ['$.1', 'json: expected a name at character 3'],
    ['$[*]', 'json: expected a quoted name or an integer index at character 3'],
    ['$[?(@.name)]', 'json: expected a quoted name or an integer index at character 3'],
    ['$[01]', 'json: expected a quoted name or an integer index at character 3'],
    ['$[-0]', 'json: expected a quoted name or an integer index at character 3'],
    ['$[1234567890123456]', 'json: expected a quoted name or an integer index at character 3'],
    ['$[0:2]', 'json: expected ] at character 4'],
    ['$[0,1]', 'json: expected ] at character 4'],
    ["$['a'", 'json: expected ] at character 6'],
    ["$['a", 'json: a quoted name is not closed at character 3'],
    ["$['\\x']", 'json: invalid escape in a quoted name at character 4'],
    ['$.a b', 'json: expected . or [ at character 4'],
    ['$.name()', 'json: expected . or [ at character 7'],
  ])('%s', (path, message) => {
    expect(() => parseJsonPath(path)).toThrow(FilterArgumentError);
    expect(() => parseJsonPath(path)).toThrow(message);
  });

  it.each([
    ['{{ data | json: 5 }}', 'json: the path must be a quoted string'],
    ['{{ data | json }}', 'json: the path must be a quoted string'],
    [`{{ data | json: '$..${SECRET}' }}`, 'json: descendant segments (..) are not supported'],
    [`{{ data | json: '${SECRET}' }}`, 'json: the path must start with $'],
  ])('%s fails through the engine with a message free of data', (expression, message) => {
    let error: unknown;
    try {
      engine.evaluate(expression, PERSON);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain(SECRET);
    expect(String((error as Error).stack)).not.toContain(SECRET);
  });
});

describe('the json filter stays within the render budget', () => {
  const timed = (run: () => unknown): number => {
    const started = performance.now();
    run();
    return performance.now() - started;
  };

  it(`refuses a path longer than ${MAX_JSON_PATH_LENGTH} characters before reading it`, () => {
    const huge = `$${'.a'.repeat(45_000)}`;
    expect(() => engine.evaluate(`{{ data | json: '${huge}' }}`, {})).toThrow(/at most 1,000 characters/);
    expect(() => parseJsonPath(`$${'.a'.repeat(1_000_000)}`)).toThrow(/at most 1,000 characters/);
    expect(parseJsonPath(`$${'.a'.repeat(499)}`)).toHaveLength(499);
  });

  it('walks huge data in as many steps as the path has', () => {
    const wide = { items: Array.from({ length: 1_000_000 }, (_, i) => i), big: 'x'.repeat(5_000_000) };
    let deep: unknown = 'bottom';
    for (let i = 0; i < 499; i++) deep = { a: deep, wide };
    const fresh = () => new LiquidExpressionEngine({ renderLimitMs: 30 });
    expect(timed(() => expect(fresh().evaluate("{{ data | json: '$.items[-1]' }}", wide)).toBe('999999'))).toBeLessThan(30);
    const path = `$${'.a'.repeat(499)}`;
    expect(timed(() => expect(fresh().evaluate(`{{ data | json: '${path}' }}`, deep)).toBe('bottom'))).toBeLessThan(30);
  });
});
