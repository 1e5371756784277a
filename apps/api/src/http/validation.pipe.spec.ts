import { BadRequestException, type ArgumentMetadata } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ApplicationBody } from '../applications/applications.dto';
import { SearchTokensBody } from '../tokens/tokens.dto';
import { FormulaListParams } from '../reactor-formulas/reactor-formulas.dto';
import { PageQuery } from './pagination';
import { vaultQueryPipe, vaultValidationPipe } from './validation.pipe';

const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });
const query = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'query', metatype });

/** The 400's `errors`, or a failure when the value passed. */
const errorsOf = async (run: Promise<unknown>): Promise<Record<string, string[]>> => {
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return ((error as BadRequestException).getResponse() as { errors: Record<string, string[]> }).errors;
  }
  throw new Error('the value passed validation');
};

const rule = (priority: number) => ({ priority, container: '/', transform: 'mask', permissions: ['token:read'] });
const application = (fields: Record<string, unknown> = {}) => ({ name: 'app', type: 'private', ...fields });
/** JSON.parse, as the body parser does: `__proto__` is an own property. */
const parsed = (json: string): Record<string, unknown> => JSON.parse(json);
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

describe('the body pipe checks list maxima on the body as parsed', () => {
  const pipe = vaultValidationPipe();

  it('refuses 10,000 rules by their count without building or reading any of them', async () => {
    let reads = 0;
    const watched = { get priority() { reads++; return 1; }, container: '/', transform: 'mask', permissions: [] };
    const errors = await errorsOf(pipe.transform(application({ rules: Array.from({ length: 10_000 }, () => watched) }), body(ApplicationBody)));
    expect(errors).toEqual({ rules: ['rules must hold at most 100 elements, not 10000'] });
    expect(reads).toBe(0);
  });

  it.each<[string, Record<string, unknown>, Record<string, string[]>]>([
    ['31 permissions', application({ permissions: Array.from({ length: 31 }, () => 'token:read') }), { permissions: ['permissions must hold at most 30 elements, not 31'] }],
    ['a rule with 31 permissions', application({ rules: [rule(1), { ...rule(2), permissions: Array.from({ length: 31 }, () => 'token:read') }] }), { 'rules[1].permissions': ['rules[1].permissions must hold at most 30 elements, not 31'] }],
  ])('%s', async (_title, value, expected) => {
    expect(await errorsOf(pipe.transform(value, body(ApplicationBody)))).toEqual(expected);
  });

  it.each<[string, string, Record<string, string[]>]>([
    ['a string field', 'name', { name: ['name must be a string'] }],
    ['a date field', 'expires_at', { expires_at: ['expires_at must be a valid ISO 8601 date string'] }],
    ['a rule', 'rules', { 'rules[0].priority': ['rules[0].priority must be an integer number'] }],
  ])('cuts 40,000 objects sent as %s to a shell before transforming anything', async (_title, field, expected) => {
    let reads = 0;
    const watched = { get a() { reads++; return 1; } };
    const objects = Array.from({ length: 40_000 }, () => watched);
    const value = field === 'rules' ? application({ rules: [{ ...rule(1), priority: objects }] }) : application({ [field]: objects });
    expect(await errorsOf(pipe.transform(value, body(ApplicationBody)))).toEqual(expected);
    expect(reads).toBe(0);
  });

  it('passes lists at their maxima on to the DTO', async () => {
    const value = application({ permissions: Array.from({ length: 30 }, () => 'token:read'), rules: Array.from({ length: 100 }, (_, i) => rule(i + 1)) });
    const dto = (await pipe.transform(value, body(ApplicationBody))) as ApplicationBody;
    expect(dto).toBeInstanceOf(ApplicationBody);
    expect(dto.rules).toHaveLength(100);
  });
});

describe('the body pipe refuses property names of Object.prototype, at any depth', () => {
  const pipe = vaultValidationPipe();

  it.each(PROTOTYPE_NAMES)('%s at the top of an application body', async (name) => {
    const value = parsed(`{"name":"app","type":"private",${JSON.stringify(name)}:{"x":1}}`);
    const errors = await errorsOf(pipe.transform(value, body(ApplicationBody)));
    expect(errors).toEqual(parsed(`{${JSON.stringify(name)}:[${JSON.stringify(`${name} is not a known property`)}]}`));
  });

  it.each(PROTOTYPE_NAMES)('%s in a rule', async (name) => {
    const value = application({ rules: [parsed(`{"priority":1,"container":"/","transform":"mask","permissions":[],${JSON.stringify(name)}:1}`)] });
    expect(Object.keys(await errorsOf(pipe.transform(value, body(ApplicationBody))))).toEqual([`rules[0].${name}`]);
  });

  it.each(PROTOTYPE_NAMES)('%s in a token search body', async (name) => {
    expect(Object.keys(await errorsOf(pipe.transform(parsed(`{${JSON.stringify(name)}:1}`), body(SearchTokensBody))))).toEqual([name]);
  });

  it.each(PROTOTYPE_NAMES)('%s inside a value the DTO does not walk into: the value is refused by its kind', async (name) => {
    const nested = parsed(`{"query":{${JSON.stringify(name)}:{"polluted":true}},"colour":{${JSON.stringify(name)}:1}}`);
    expect(await errorsOf(pipe.transform(nested, body(SearchTokensBody)))).toEqual({
      query: ['query must be a string'],
      colour: ['colour is not a known property'],
    });
  });

  it('leaves bodies the domain validates (typed as plain objects) to the domain', async () => {
    const value = parsed('{"type":"token","data":{"constructor":1,"__proto__":{"a":1}}}');
    await expect(pipe.transform(value, body(Object))).resolves.toBe(value);
  });
});

describe('the body pipe keeps its answer small, whatever the unknown properties', () => {
  const pipe = vaultValidationPipe();

  it('names an unknown property of 1,000,000 characters by its first 100, beside the other errors', async () => {
    const name = 'x'.repeat(1_000_000);
    const errors = await errorsOf(pipe.transform({ size: 0, [name]: 1 }, body(SearchTokensBody)));
    const echoed = `${'x'.repeat(100)}…`;
    expect(errors).toEqual({ size: ['size must not be less than 1'], [echoed]: [`${echoed} is not a known property`] });
  });

  it('answers 60,000 unknown properties with 20 names and one count', async () => {
    const value = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, {}] as const));
    const errors = await errorsOf(pipe.transform(value, body(ApplicationBody)));
    expect(Object.keys(errors)).toHaveLength(21);
    expect(errors.body).toEqual(['body has 59980 more unknown properties; only the first 20 are named']);
  });
});

describe('the body pipe gives one message per field', () => {
  const pipe = vaultValidationPipe();

  it.each<[Record<string, unknown>, Record<string, string[]>]>([
    [{ size: '20' }, { size: ['size must be an integer'] }],
    [{ size: 1.5 }, { size: ['size must be an integer'] }],
    [{ size: 0 }, { size: ['size must not be less than 1'] }],
    [{ size: 101 }, { size: ['size must not be greater than 100'] }],
    [{ page: -0 }, { page: ['page must not be less than 1'] }],
    [{ page: '2' }, { page: ['page must be an integer'] }],
    [{ page: 1e308 }, { page: ['page must not be greater than 1000000000'] }],
    [{ page: 2 ** 53 + 1 }, { page: ['page must not be greater than 1000000000'] }],
    [{ page: 4611686018427387904 }, { page: ['page must not be greater than 1000000000'] }],
    [{ query: ['a'] }, { query: ['query must be a string'] }],
  ])('search body %j', async (value, expected) => {
    expect(await errorsOf(pipe.transform(value, body(SearchTokensBody)))).toEqual(expected);
  });

  it('accepts the largest page', async () => {
    await expect(pipe.transform({ page: 1_000_000_000, size: 100 }, body(SearchTokensBody))).resolves.toMatchObject({ page: 1_000_000_000, size: 100 });
  });
});

describe('the query pipe reads page and size as plain decimal digits', () => {
  const pipe = vaultQueryPipe();

  it.each<[Record<string, unknown>, Record<string, string[]>]>([
    [{ size: '0x10' }, { size: ['size must be an integer'] }],
    [{ size: '1e1' }, { size: ['size must be an integer'] }],
    [{ size: ' 5' }, { size: ['size must be an integer'] }],
    [{ size: '' }, { size: ['size must be an integer'] }],
    [{ size: '-1' }, { size: ['size must be an integer'] }],
    [{ size: ['1', '2'] }, { size: ['size must be an integer'] }],
    [{ page: '0' }, { page: ['page must not be less than 1'] }],
    [{ page: '99999999999999999999' }, { page: ['page must not be greater than 1000000000'] }],
    [{ page: '4611686018427387904' }, { page: ['page must not be greater than 1000000000'] }],
    [{ page: '1000000001' }, { page: ['page must not be greater than 1000000000'] }],
  ])('%j', async (value, expected) => {
    expect(await errorsOf(pipe.transform(value, query(PageQuery)))).toEqual(expected);
  });

  it.each<[Record<string, unknown>, Record<string, unknown>]>([
    [{ page: '1000000000', size: '100' }, { page: 1_000_000_000, size: 100 }],
    [{ page: '007', size: '20' }, { page: 7, size: 20 }],
    [{}, {}],
  ])('%j is read as %j', async (value, expected) => {
    expect({ ...((await pipe.transform(value, query(PageQuery))) as object) }).toEqual(expected);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ 'name[]': 'a' }, 'name'],
    [{ 'name[0]': 'a' }, 'name'],
    [{ 'page[x]': '1' }, 'page'],
    [{ name: ['a', 'b'] }, 'name'],
  ])('refuses %j, naming %s', async (value, field) => {
    expect(Object.keys(await errorsOf(pipe.transform(value, query(FormulaListParams))))).toEqual([field]);
  });

  it('ignores unknown parameters, bracketed or not', async () => {
    const value = parsed('{"other[]":"x","constructor":"1","__proto__":"x","size":"5"}');
    await expect(pipe.transform(value, query(FormulaListParams))).resolves.toEqual(Object.assign(new FormulaListParams(), { size: 5 }));
  });
});

describe("the search body's fast path", () => {
  const pipe = vaultValidationPipe();
  /** What class-validator alone says of a body, with the pipe's options. */
  const fullWayAccepts = async (value: object) =>
    (await validate(plainToInstance(SearchTokensBody, value), { whitelist: true, forbidNonWhitelisted: true })).length === 0;

  it.each<[Record<string, unknown>, boolean]>([
    [{}, true],
    [{ query: 'id:1', page: 1, size: 20 }, true],
    [{ query: null, page: null, size: null }, true],
    [{ page: 1_000_000_000, size: 100 }, true],
    [{ query: '' }, true],
    [{ size: 101 }, false],
    [{ size: 0 }, false],
    [{ page: -0 }, false],
    [{ page: 1.5 }, false],
    [{ page: '2' }, false],
    [{ page: 1e308 }, false],
    [{ query: ['a'] }, false],
    [{ query: 1 }, false],
    [{ other: 1 }, false],
    [parsed('{"__proto__":{"page":1}}'), false],
  ])('%j: taken as is only when class-validator accepts it too', async (value, fast) => {
    expect(SearchTokensBody.acceptsAsIs(value)).toBe(fast);
    if (fast) {
      expect(await fullWayAccepts(value)).toBe(true);
      const out = await pipe.transform(value, body(SearchTokensBody));
      expect(out).toBeInstanceOf(SearchTokensBody);
      expect({ ...(out as object) }).toEqual(value);
    } else {
      await expect(pipe.transform(value, body(SearchTokensBody))).rejects.toBeInstanceOf(BadRequestException);
    }
  });

  it('leaves bodies that are no objects to the full way', () => {
    for (const value of [null, undefined, [], 'a', 1]) expect(SearchTokensBody.acceptsAsIs(value)).toBe(false);
  });
});
