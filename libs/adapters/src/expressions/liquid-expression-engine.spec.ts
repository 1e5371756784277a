import { DEFAULT_DATA_SEARCH_INDEXES, tokenTypeRules } from '@vault/domain';
import { ExpressionError, LiquidExpressionEngine } from './liquid-expression-engine';

const engine = new LiquidExpressionEngine();
const SSN = '123-45-6789';
const SECRET = 'Sup3r-S3cret-Value';

describe('custom filters', () => {
  it.each([
    ['{{ data | last4 }}', SSN, '6789'],
    ['{{ data | last4 }}', '4242 4242 4242 4242', '4242'],
    ['{{ data | last4 }}', 'no digits', ''],
    ['{{ data | reveal_last: 4 }}', SSN, 'XXX-XX-6789'],
    ['{{ data | reveal_last: 4 }}', '4111111111111111', 'XXXXXXXXXXXX1111'],
    ["{{ data | reveal_last: 2, '*' }}", 'ab-12', '**-12'],
    ["{{ data | reveal_last: 0, '#' }}", '12 ab', '## ##'],
    ['{{ data | reveal_last: 20 }}', SSN, SSN],
    ['{{ data | reveal: 2, 4 }}', SSN, '12X-XX-6789'],
    ["{{ data | reveal: 1, 1, '*' }}", 'abcdef', 'a****f'],
    ['{{ data | reveal: 6, 6 }}', 'abc', 'abc'],
    ["{{ data | pad_left: 6, '0' }}", '42', '000042'],
    ["{{ data | pad_right: 5, '.' }}", 'ab', 'ab...'],
    ["{{ data | pad_left: 2, '0' }}", 'abcd', 'abcd'],
    ['{{ data | stringify }}', { b: 2, a: [1, 'x'] }, '{"a":[1,"x"],"b":2}'],
    ['{{ data | stringify }}', 'text', '"text"'],
    ["{{ data | remove: '-' }}", SSN, '123456789'],
  ])('%s on %j gives %j', (expression, data, expected) => {
    expect(engine.evaluate(expression, data)).toBe(expected);
  });

  it('fingerprints objects with the same content alike, whatever their key order', () => {
    const expression = tokenTypeRules('token').defaultFingerprintExpression;
    expect(engine.evaluate(expression, { a: 1, b: { d: 4, c: 3 } })).toBe(engine.evaluate(expression, { b: { c: 3, d: 4 }, a: 1 }));
  });
});

describe("the token types' default expressions", () => {
  it.each([
    ['social_security_number', SSN, ['123-45-6789', '123456789', '6789'], '123456789', 'XXX-XX-6789'],
    ['employer_id_number', '12-3456789', ['12-3456789', '123456789', '6789'], '123456789', 'XX-XXX6789'],
  ] as const)('%s %s', (type, data, indexes, fingerprint, mask) => {
    const rules = tokenTypeRules(type);
    expect(rules.defaultSearchIndexes.map((index) => engine.evaluate(index, data))).toEqual(indexes);
    expect(engine.evaluate(rules.defaultFingerprintExpression, data)).toBe(fingerprint);
    expect(engine.evaluate(rules.defaultMask!, data)).toBe(mask);
  });

  it('masks a card number to its last four digits and fingerprints its digits', () => {
    const rules = tokenTypeRules('card_number');
    expect(engine.evaluate(rules.defaultMask!, '4242424242424242')).toBe('XXXXXXXXXXXX4242');
    expect(engine.evaluate(rules.defaultFingerprintExpression, '4242424242424242')).toBe('4242424242424242');
  });

  it('parses every default expression', () => {
    for (const expression of DEFAULT_DATA_SEARCH_INDEXES) expect(engine.validate(expression)).toBeNull();
  });
});

describe('rendering values', () => {
  it.each([
    ['{{ data.name }}', { name: 'Ada' }, 'Ada'],
    ['{{ data.n }}', { n: 12.5 }, '12.5'],
    ['{{ data.ok }}', { ok: true }, 'true'],
    ['{{ data.missing }}', {}, ''],
    ['{{ data.nested }}', { nested: { a: 1 } }, '{"a":1}'],
    ['{{ data.tags }}', { tags: ['a', 'b'] }, '["a","b"]'],
    ["{{ data | split: '-' }}", SSN, '["123","45","6789"]'],
    ['{{ data.first }} {{ data.last }}', { first: 'Ada', last: 'Lovelace' }, 'Ada Lovelace'],
    ['{{ data.constructor }}', {}, ''],
  ])('%s on %j gives %j', (expression, data, expected) => {
    expect(engine.evaluate(expression, data)).toBe(expected);
  });
});

describe('validate', () => {
  it.each([
    ['{{ data | no_such_filter }}', /undefined filter: no_such_filter/],
    ['{{ data | raw }}', /undefined filter: raw/],
    ['{{ data ', /not closed/],
    ["{% include 'secrets.txt' %}", /tag "include" not found/],
    ["{% render '/etc/passwd' %}", /tag "render" not found/],
    ['{% if data %}', /not closed/],
  ])('rejects %s', (expression, message) => {
    expect(engine.validate(expression)).toMatch(message);
  });

  it('accepts standard and custom filters', () => {
    expect(engine.validate("{{ data | upcase | remove: '-' | reveal_last: 4, '*' | pad_left: 12, ' ' }}")).toBeNull();
  });
});

describe('errors never carry the data', () => {
  const failing = (expression: string, data: unknown): ExpressionError => {
    try {
      engine.evaluate(expression, data);
    } catch (error) {
      return error as ExpressionError;
    }
    throw new Error(`${expression} rendered`);
  };

  it.each([
    ['{{ data | reveal_last: data }}', /reveal_last: n must be an integer/],
    ["{{ data | pad_left: 5, 'ab' }}", /exactly one character/],
    ["{{ data | pad_left: 5000000, '0' }}", /pad_left: n must be an integer from 0 to 1000/],
    ['{{ data | pad_right: 3 }}', /exactly one character/],
    ['{% for i in (1..100000000) %}{{ data }}{% endfor %}', /memory alloc limit/],
    ['{{ data | no_such_filter }}', /does not parse/],
  ])('%s', (expression, message) => {
    const error = failing(expression, SECRET);
    expect(error).toBeInstanceOf(ExpressionError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(SECRET);
    expect(String(error.stack)).not.toContain(SECRET);
  });

  it('replaces errors of standard filters, which may quote their input, with a fixed message', () => {
    // JSON data may hold an object whose toString is null: a standard filter then throws a plain JavaScript error.
    const data = JSON.parse(`{"o":{"toString":null,"note":"${SECRET}"}}`);
    const error = failing('{{ data.o | plus: 1 }}', data);
    expect(error.message).toBe('The expression failed while rendering.');
    expect(String(error.stack)).not.toContain(SECRET);
  });

  it.each(['where_exp', 'reject_exp', 'group_by_exp', 'has_exp', 'find_exp', 'find_index_exp', 'sample'])(
    'does not offer %s: it works per list item inside one filter call, out of reach of the render budget',
    (filter) => {
      expect(engine.validate(`{{ data | ${filter}: 'x', 'x' }}`)).toMatch(/unknown filter|undefined filter/);
    },
  );

  it('refuses to run a standard filter over a list of more than 1,000 items', () => {
    const error = failing("{{ data | split: '' | where: 'x', 1 | size }}", 'a'.repeat(1_001));
    expect(error.message).toMatch(/^where:/);
    expect(error.message).toMatch(/more than 1,000 items/);
    expect(engine.evaluate("{{ data | split: '' | size }}", 'a'.repeat(1_001))).toBe('1001');
    expect(engine.evaluate("{{ data | split: '' | reverse | join: '' }}", 'abc')).toBe('cba');
  });
});

/** Blocks the thread without using the CPU, as a descheduled or blocked event loop does. */
const sleep = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
/** Keeps the thread on the CPU until both the wall clock and the process's CPU time have counted `ms`. */
const burn = (ms: number): void => {
  const [wall, cpu] = [performance.now(), process.cpuUsage()];
  for (;;) {
    const used = process.cpuUsage(cpu);
    if (performance.now() - wall >= ms && (used.user + used.system) / 1_000 >= ms) return;
  }
};

describe('the time budget counts the CPU time the rendering used', () => {
  it('stops a render that runs past its time budget', () => {
    const slow = new LiquidExpressionEngine({ renderLimitMs: 1, memoryLimit: 1e9 });
    const expression = '{% for i in (1..3000) %}{% for j in (1..3000) %}{{ data }}{% endfor %}{% endfor %}';
    expect(() => slow.evaluate(expression, SECRET)).toThrow(/template render limit/);
  });

  // Three times the budget, in the middle of one expression (liquidjs reads a property twice: the first read stalls)
  // or between two of one stretch.
  const inside = (template: string) => (stall: (ms: number) => void) => {
    let stalled = false;
    const data = {
      get first() {
        if (!stalled) stall(60);
        stalled = true;
        return 'a';
      },
      second: 'b',
    };
    return new LiquidExpressionEngine({ renderLimitMs: 20 }).evaluate(template, data);
  };
  const between = (stall: (ms: number) => void) => {
    const engine = new LiquidExpressionEngine({ renderLimitMs: 20 });
    const first = engine.evaluate('{{ data | upcase }}', 'a');
    stall(60);
    return `${first}-${engine.evaluate('{{ data | downcase }}', 'B')}`;
  };
  it.each([
    ['between two top-level nodes', inside('{{ data.first }}-{{ data.second }}'), 'a-b', /template render limit/],
    ['inside a tag', inside('{% if true %}{{ data.first }}-{{ data.second }}{% endif %}'), 'a-b', /template render limit/],
    ['between two evaluations of one stretch', between, 'A-b', /shared time limit/],
  ])('%s: a thread kept off the CPU for three budgets still renders; one kept on it is stopped', (_where, run, rendered, refused) => {
    expect(run(sleep)).toBe(rendered);
    expect(() => run(burn)).toThrow(refused);
  });

  it('shares one budget among the evaluations of one synchronous stretch, and starts a new one after it', async () => {
    const engine = new LiquidExpressionEngine({ renderLimitMs: 20 });
    const loop = '{% for i in (1..1000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}x';
    expect(() => engine.evaluate(loop, 'd')).toThrow(/template render limit/);
    // The stretch's budget is spent: even a trivial expression after it is refused, so twenty slow ones in one
    // request cost one budget, not twenty.
    expect(() => engine.evaluate('{{ data | upcase }}', 'd')).toThrow(/shared time limit/);
    // The token types' own expressions (a card's fingerprint, an SSN's mask) do not spend it: a caller's slow expression
    // must not make them fail too.
    expect(engine.evaluate('{{ data }}', 'card')).toBe('card');
    expect(engine.evaluate('{{ data | reveal_last: 4 }}', '123-45-6789')).toBe('XXX-XX-6789');
    await Promise.resolve();
    expect(engine.evaluate('{{ data | upcase }}', 'fresh')).toBe('FRESH');
  });
});

describe('template cache', () => {
  it('keeps evaluating correctly once more expressions were seen than it holds', () => {
    const small = new LiquidExpressionEngine({ cacheSize: 2 });
    const expressions = ['{{ data }}', '{{ data | upcase }}', '{{ data | last4 }}', '{{ data }}'];
    expect(expressions.map((expression) => small.evaluate(expression, 'ab12'))).toEqual(['ab12', 'AB12', '12', 'ab12']);
  });
});
