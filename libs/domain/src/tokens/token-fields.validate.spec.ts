// Each field rule of a token body, table-driven through validateCreateToken: the value given, and either what is
// stored or the field path and message of the 400.
import { DomainError, type FieldErrors } from '../shared/errors';
import { LATER, specEngine } from './token.builders';
import { describeParseProblem } from './token-fields.validate';
import { validateCreateToken, validateTokenPatch } from './token-input.validate';

const options = { now: LATER, engine: specEngine };
const ssn = (fields: Record<string, unknown>) => ({ type: 'social_security_number', data: '123-45-6789', ...fields });

const errorsOf = (body: unknown): FieldErrors => {
  try {
    validateCreateToken(body, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors!;
  }
  throw new Error('The body was accepted');
};

const paths = (count: number) => Array.from({ length: count }, (_, i) => `/c${i}/`);
const pairs = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v']));

describe('containers', () => {
  it.each([
    [['/'], ['/']],
    [['/pii/high/'], ['/pii/high/']],
    [['/PII/High/'], ['/pii/high/']],
    [['/a/', '/A/', '/b/'], ['/a/', '/b/']],
    [['/with_under-score/0-9/'], ['/with_under-score/0-9/']],
    [paths(10), paths(10)],
    [[...paths(9), '/C0/'], paths(9)],
  ])('%j is stored as %j', (containers, stored) => {
    expect(validateCreateToken(ssn({ containers }), options).draft.containers).toEqual(stored);
  });

  it.each([
    [[], 'containers', 'at least one'],
    [paths(11), 'containers', 'at most 10 containers, not 11'],
    [[...paths(10), '/C0/'], 'containers', 'at most 10 containers, not 11'],
    ['/pii/', 'containers', 'must be an array'],
    [['pii/high/'], 'containers[0]', 'must be a path'],
    [['/pii/high'], 'containers[0]', 'must be a path'],
    [['/ok/', '/pii//high/'], 'containers[1]', 'must be a path'],
    [['/ok/', '/p i/'], 'containers[1]', 'must be a path'],
    [['/ok/', '/pï/'], 'containers[1]', 'must be a path'],
    [[42], 'containers[0]', 'must be a path'],
  ])('%j is a 400 on %s', (containers, path, message) => {
    expect(errorsOf(ssn({ containers }))[path]).toEqual([expect.stringContaining(message)]);
  });
});

describe('metadata', () => {
  const long = (length: number, char = 'k') => char.repeat(length);

  it.each([
    [pairs(50), pairs(50)],
    [{ [long(100)]: 'v' }, { [long(100)]: 'v' }],
    [{ key: long(500, 'v') }, { key: long(500, 'v') }],
    [{ key: '🔐'.repeat(500) }, { key: '🔐'.repeat(500) }],
    [{ 'A-z_0.9': '' }, { 'A-z_0.9': '' }],
    [{ kept: 'v', dropped: null }, { kept: 'v' }],
  ])('%j is stored as %j', (metadata, stored) => {
    expect(validateCreateToken(ssn({ metadata }), options).draft.metadata).toEqual(stored);
  });

  it.each([
    [pairs(51), 'metadata', 'at most 50 entries, not 51'],
    [{ [long(101)]: 'v' }, `metadata.${long(101)}`, '1 to 100 characters'],
    [{ 'bad key': 'v' }, 'metadata.bad key', '1 to 100 characters'],
    [{ key: long(501, 'v') }, 'metadata.key', 'at most 500 characters'],
    [{ key: 5 }, 'metadata.key', 'must be a string'],
    [{ key: { nested: 'v' } }, 'metadata.key', 'must be a string'],
    [['v'], 'metadata', 'must be an object'],
  ])('%j is a 400 on %s', (metadata, path, message) => {
    expect(errorsOf(ssn({ metadata }))[path]).toEqual([expect.stringContaining(message)]);
  });
});

describe('expires_at', () => {
  it.each([
    ['2030-01-31T12:00:00Z', '2030-01-31T12:00:00.000Z'],
    ['2030-01-31T12:00:00.123456Z', '2030-01-31T12:00:00.123Z'],
    ['2030-01-31T13:00:00+01:00', '2030-01-31T12:00:00.000Z'],
    ['2030-01-31T12:00Z', '2030-01-31T12:00:00.000Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
    [null, null],
  ])('%j is stored as %j', (expires_at, stored) => {
    expect(validateCreateToken(ssn({ expires_at }), options).draft.expires_at).toEqual(stored);
  });

  it.each([
    [LATER.toISOString(), 'in the future'],
    ['2024-01-01T00:00:00Z', 'in the future'],
    ['2030-01-31', 'with a time zone'],
    ['2030-01-31T12:00:00', 'with a time zone'],
    ['2030-02-30T00:00:00Z', 'ISO 8601'],
    ['2030-01-31T24:00:00Z', 'ISO 8601'],
    ['2030-01-31T12:00:00+24:00', 'ISO 8601'],
    ['next tuesday', 'ISO 8601'],
    [1893456000000, 'ISO 8601'],
  ])('%j is a 400', (expires_at, message) => {
    expect(errorsOf(ssn({ expires_at })).expires_at).toEqual([expect.stringContaining(message)]);
  });
});

describe('expressions', () => {
  it.each(['fingerprint_expression', 'mask'])('%s must parse, and the 400 says why', (field) => {
    expect(errorsOf(ssn({ [field]: '{{ data | nope }}' }))[field]).toEqual([
      `${field} is not a valid expression: an unknown filter (line 1, column 1).`,
    ]);
  });

  it.each([
    ['', 'must not be empty'],
    ['   ', 'must not be empty'],
    [7, 'must be a Liquid expression string'],
    [`{{ data }}${' '.repeat(2_000)}`, 'at most 2000 characters'],
  ])('mask %j is a 400', (mask, message) => {
    expect(errorsOf(ssn({ mask })).mask).toEqual([expect.stringContaining(message)]);
  });

  it('reports an expression that fails while evaluating on its field', () => {
    expect(errorsOf(ssn({ mask: '{{ data | fails }}' })).mask).toEqual([
      'mask could not be evaluated: The expression failed while rendering.',
    ]);
  });
});

describe('id', () => {
  it.each([
    ['B0B0B0B0-0000-4000-8000-00000000000A', 'b0b0b0b0-0000-4000-8000-00000000000a'],
    [null, null],
    [undefined, null],
  ])('%j gives id %j', (id, stored) => {
    expect(validateCreateToken(ssn({ id }), options).id).toBe(stored);
  });

  it.each(['not-a-uuid', 'b0b0b0b0000040008000000000000001', 12])('%j is a 400', (id) => {
    expect(errorsOf(ssn({ id })).id).toEqual(['id must be a UUID.']);
  });
});

describe('lists are refused by their length before any item is read', () => {
  const many = (count: number, item: unknown) => Array.from({ length: count }, () => item);

  it.each<[string, Record<string, unknown>, string, string]>([
    ['10,000 containers that are not paths', { containers: many(10_000, 42) }, 'containers', 'containers must hold at most 10 containers, not 10000.'],
    ['10,000 metadata pairs with bad keys', { metadata: Object.fromEntries(many(10_000, 0).map((_, i) => [`bad key ${i}`, 1])) }, 'metadata', 'metadata must hold at most 50 entries, not 10000.'],
    ['10,000 search indexes that are not strings', { type: 'token', data: 'x', search_indexes: many(10_000, 7) }, 'search_indexes', 'search_indexes must hold at most 20 expressions.'],
  ])('%s: one error on the list itself', (_title, fields, path, message) => {
    expect(errorsOf(ssn(fields))).toEqual({ [path]: [message] });
  });

  it('a metadata patch is refused by its own size too', () => {
    const current = validateCreateToken(ssn({}), options).draft;
    expect(() => validateTokenPatch({ metadata: pairs(51) }, current, options)).toThrow(DomainError);
  });
});

describe('metadata keys named like members of Object.prototype are ordinary keys', () => {
  const names = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
  // As the HTTP layer parses it: JSON.parse makes `__proto__` an own property.
  const metadataOf = (json: string) => JSON.parse(json) as Record<string, unknown>;

  it.each(names)('%s is stored, kept as an own key, and survives JSON', (key) => {
    const { metadata } = validateCreateToken(ssn({ metadata: metadataOf(`{${JSON.stringify(key)}:"y","other":"z"}`) }), options).draft;
    expect(Object.keys(metadata)).toEqual([key, 'other']);
    expect(Object.getOwnPropertyDescriptor(metadata, key)?.value).toBe('y');
    expect(JSON.stringify(metadata)).toBe(`{${JSON.stringify(key)}:"y","other":"z"}`);
  });

  it.each(names)('%s is replaced and removed by a merge patch', (key) => {
    const created = validateCreateToken(ssn({ metadata: metadataOf(`{${JSON.stringify(key)}:"y"}`) }), options).draft;
    const stored = JSON.parse(JSON.stringify(created)) as typeof created;
    const replaced = validateTokenPatch({ metadata: metadataOf(`{${JSON.stringify(key)}:"w"}`) }, stored, options).draft;
    expect(JSON.stringify(replaced.metadata)).toBe(`{${JSON.stringify(key)}:"w"}`);
    const removed = validateTokenPatch({ metadata: metadataOf(`{${JSON.stringify(key)}:null}`) }, stored, options).draft;
    expect(removed.metadata).toEqual({});
    expect(Object.keys(removed.metadata)).toEqual([]);
  });

  it.each(names)('%s with a bad value is a 400 on metadata.%s', (key) => {
    const errors = errorsOf(ssn({ metadata: metadataOf(`{${JSON.stringify(key)}:5}`) }));
    expect(Object.keys(errors)).toEqual([`metadata.${key}`]);
    expect(errors[`metadata.${key}`]).toEqual([`metadata.${key} must be a string, not a number.`]);
  });
});

describe('describeParseProblem names the kind and position of a Liquid parse problem, never its text', () => {
  it.each([
    ['output "{{ Zq9abc" not closed, line:1, col:1', 'a tag, output or bracket that is not closed (line 1, column 1).'],
    ['undefined filter: Zq9abc, line:1, col:12', 'an unknown filter (line 1, column 12).'],
    ['tag "Zq9abc" not found, line:2, col:3', 'an unknown tag (line 2, column 3).'],
    ['tag {% if Zq9 %} not closed, line:1, col:1', 'a tag, output or bracket that is not closed (line 1, column 1).'],
    ['illegal tag: {% for Zq9abc %}, line:1, col:1', 'a tag where Liquid does not allow it (line 1, column 1).'],
    ['[ not closed, line:1, col:15', 'a tag, output or bracket that is not closed (line 1, column 15).'],
    ['invalid value expression: "Zq9", line:1, col:19', 'a missing or invalid value (line 1, column 19).'],
    ['Zq9abc went wrong', 'a syntax error.'],
  ])('%s', (problem, described) => {
    expect(describeParseProblem(problem)).toBe(described);
  });
});
