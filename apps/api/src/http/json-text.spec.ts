import fc from 'fast-check';
import {
  findJsonSyntaxError,
  findJsonSyntaxErrorInSlices,
  MAX_BODY_DEPTH,
  MAX_BODY_MEMBERS,
  MAX_BODY_VALUES,
  measureJsonText,
  readJsonText,
  textNestsDeeper,
} from './json-text';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
const nestedObject = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

describe('findJsonSyntaxError says where and what the grammar expected, never quoting the text', () => {
  it.each<[string, string, { position: number; line: number; column: number; expected: string }]>([
    ['a single-quoted string', `{"type":"social_security_number","data":'987-65-4321'}`, { position: 40, line: 1, column: 41, expected: 'a value' }],
    ['a trailing comma in an object', '{"a":1,}', { position: 7, line: 1, column: 8, expected: 'a property name in double quotes' }],
    ['a trailing comma in an array', '[1,]', { position: 3, line: 1, column: 4, expected: 'a value' }],
    ['a missing colon', '{"a" 1}', { position: 5, line: 1, column: 6, expected: "':'" }],
    ['an unquoted key', '{a:1}', { position: 1, line: 1, column: 2, expected: "a property name in double quotes or '}'" }],
    ['a missing comma on a later line', '{\n  "a": 1\n  "b": 2\n}', { position: 13, line: 3, column: 3, expected: "',' or '}'" }],
    ['a bracket closing a brace', '{"a":[1}', { position: 7, line: 1, column: 8, expected: "',' or ']'" }],
    ['text after the value', '{} {}', { position: 3, line: 1, column: 4, expected: 'the end of the body' }],
    ['a body cut short', '{"a":[1,2', { position: 9, line: 1, column: 10, expected: "',' or a closing bracket before the end of the body" }],
    ['an unterminated string', '{"a":"abc', { position: 9, line: 1, column: 10, expected: 'a closing quote before the end of the body' }],
    ['a raw control character in a string', '{"a":"a\tb"}', { position: 7, line: 1, column: 8, expected: 'a closing quote or an escaped control character' }],
    ['a bad escape', '{"a":"\\x41"}', { position: 6, line: 1, column: 7, expected: 'a valid escape sequence' }],
    ['a short unicode escape', '{"a":"\\u12"}', { position: 6, line: 1, column: 7, expected: 'four hexadecimal digits after \\u' }],
    ['a leading plus', '{"a":+1}', { position: 5, line: 1, column: 6, expected: 'a value' }],
    ['a leading zero', '{"a":01}', { position: 6, line: 1, column: 7, expected: "',' or '}'" }],
    ['a hexadecimal number', '{"a":0x10}', { position: 6, line: 1, column: 7, expected: "',' or '}'" }],
    ['a bare decimal point', '{"a":1.}', { position: 7, line: 1, column: 8, expected: 'a digit after the decimal point' }],
    ['an empty exponent', '{"a":1e}', { position: 7, line: 1, column: 8, expected: 'a digit in the exponent' }],
    ['NaN', '{"a":NaN}', { position: 5, line: 1, column: 6, expected: 'a value' }],
    ['a misspelt literal', '{"a":tru}', { position: 5, line: 1, column: 6, expected: 'true' }],
    ['whitespace only', '  \n ', { position: 4, line: 2, column: 2, expected: 'a value before the end of the body' }],
  ])('%s', (_title, text, expected) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(findJsonSyntaxError(text)).toEqual(expected);
  });

  it.each(['{}', '[]', '"x"', '0', '-0.5e+10', 'null', '{"a":[1,{"b":"\\u00e9\\n"}],"c":true}', ' \t\r\n{ } ', nested(200_000)])(
    'finds nothing wrong in valid JSON: %s',
    (text) => {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(findJsonSyntaxError(text)).toBeNull();
    },
  );

  it('finds the same, slice by slice, in a megabyte whose error is at its end', async () => {
    const text = `{"a":[${Array.from({ length: 500_000 }, () => '1').join(',')},]}`;
    const expected = { position: text.length - 2, line: 1, column: text.length - 1, expected: 'a value' };
    expect(findJsonSyntaxError(text)).toEqual(expected);
    await expect(findJsonSyntaxErrorInSlices(text)).resolves.toEqual(expected);
    await expect(findJsonSyntaxErrorInSlices(`{"a":"${'x'.repeat(200_000)}"}`)).resolves.toBeNull();
  });

  it('walks 500,000 open brackets without overflowing the stack', () => {
    expect(findJsonSyntaxError('['.repeat(500_000))).toEqual({
      position: 500_000,
      line: 1,
      column: 500_001,
      expected: "a value or ']' before the end of the body",
    });
  });
});

describe('readJsonText', () => {
  it('reads a body as JSON', async () => {
    await expect(readJsonText('{"a":[1,{"__proto__":2}]}')).resolves.toEqual({ ok: true, value: JSON.parse('{"a":[1,{"__proto__":2}]}') });
  });

  it("reports invalid JSON by position, never with V8's excerpt of the body", async () => {
    const result = await readJsonText(`{"type":"social_security_number","data":'987-65-4321'}`);
    expect(result).toEqual({ ok: false, problem: 'is not valid JSON: expected a value at line 1, column 41 (character 40).' });
    expect(JSON.stringify(result)).not.toMatch(/987|65|4321|social/);
  });

  it.each<[string, string]>([
    [`${MAX_BODY_DEPTH} nested arrays`, nested(MAX_BODY_DEPTH)],
    [`${MAX_BODY_DEPTH} nested objects`, nestedObject(MAX_BODY_DEPTH)],
    ['a wide body', `{"a":[${Array.from({ length: 10_000 }, () => '[[1]]').join(',')}]}`],
  ])('accepts %s', async (_title, text) => {
    expect((await readJsonText(text)).ok).toBe(true);
  });

  it.each<[string, string]>([
    [`${MAX_BODY_DEPTH + 1} nested arrays`, nested(MAX_BODY_DEPTH + 1)],
    [`${MAX_BODY_DEPTH + 1} nested objects`, nestedObject(MAX_BODY_DEPTH + 1)],
    ['a query of 100,000 nested arrays', `{"query":${nested(100_000)}}`],
    ['rules nested 100,000 deep', `{"name":"x","type":"private","rules":${nested(100_000)}}`],
    ['objects in arrays 50,000 deep', `{"a":${'[{"b":'.repeat(50_000)}1${'}]'.repeat(50_000)}}`],
  ])('refuses %s', async (_title, text) => {
    await expect(readJsonText(text)).resolves.toEqual({ ok: false, problem: `must not nest arrays and objects more than ${MAX_BODY_DEPTH} deep.` });
  });
});

describe('textNestsDeeper reads the depth from the text, outside strings', () => {
  it.each<[string, number, boolean]>([
    ['1', 0, false],
    ['{}', 1, false],
    ['{}', 0, true],
    ['[[1]]', 2, false],
    ['[[1]]', 1, true],
    ['{"a":[{"b":{}}]}', 4, false],
    ['{"a":[{"b":{}}]}', 3, true],
    ['{"a":1,"b":[1,2,[3]]}', 3, false],
    ['[[],[],[],[]]', 2, false],
    ['{"a":"[[[[{{{{"}', 1, false],
    ['{"a":"\\"[[[["}', 1, false],
    ['{"a":"\\\\"}', 1, false],
    ['{"a":"\\\\","b":[[1]]}', 2, true],
  ])('%s deeper than %i: %s', (text, max, expected) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(textNestsDeeper(text, max)).toBe(expected);
  });
});

describe('measureJsonText counts values and members from the text alone', () => {
  /** The reference: values and members of the parsed value. */
  const count = (value: unknown): { values: number; members: number } => {
    if (value === null || typeof value !== 'object') return { values: 1, members: 0 };
    const children = Array.isArray(value) ? value : Object.values(value);
    const own = Array.isArray(value) ? 0 : children.length;
    return children.map(count).reduce((a, b) => ({ values: a.values + b.values, members: a.members + b.members }), { values: 1, members: own });
  };

  it('agrees with the parsed value for any JSON, compact or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), (value, indent) => {
        const text = JSON.stringify(value, null, indent ? 2 : undefined);
        const { tooDeep, ...measured } = measureJsonText(text, 1000);
        expect(tooDeep).toBe(false);
        expect(measured).toEqual(count(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });

  it.each<[string, string]>([
    [`${MAX_BODY_VALUES + 1} values`, `[${Array.from({ length: MAX_BODY_VALUES }, () => '{}').join(',')}]`],
    [`${MAX_BODY_VALUES + 1} numbers and arrays`, `[${Array.from({ length: MAX_BODY_VALUES }, () => '0').join(',')}]`],
  ])('refuses a body of %s before parsing it', async (_title, text) => {
    await expect(readJsonText(text)).resolves.toEqual({ ok: false, problem: `must not hold more than ${MAX_BODY_VALUES} JSON values.` });
    const [ok] = [`[${Array.from({ length: MAX_BODY_VALUES - 1 }, () => '0').join(',')}]`];
    expect((await readJsonText(ok)).ok).toBe(true);
  });

  it(`refuses more than ${MAX_BODY_MEMBERS} object members, and takes exactly that many`, async () => {
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    await expect(readJsonText(members(MAX_BODY_MEMBERS + 1))).resolves.toEqual({ ok: false, problem: `must not hold more than ${MAX_BODY_MEMBERS} object members.` });
    expect((await readJsonText(members(MAX_BODY_MEMBERS))).ok).toBe(true);
  });
});
