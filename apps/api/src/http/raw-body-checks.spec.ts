import 'reflect-metadata';
import { ApplicationBody } from '../applications/applications.dto';
import { SearchTokensBody } from '../tokens/tokens.dto';
import { echoedName, prepareDtoBody } from './raw-body-checks';

const unknownKeys = (count: number, prefix = 'k') => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, {}] as const));
const rule = (fields: Record<string, unknown> = {}) => ({ priority: 1, container: '/', transform: 'mask', permissions: ['token:read'], ...fields });
const named = (paths: string[]) => Object.fromEntries(paths.map((path) => [path, [`${path} is not a known property`]]));

describe('prepareDtoBody counts unknown properties before any per-key work', () => {
  it('names the first 20 of 60,000 unknown properties and counts the rest on body', () => {
    const { errors } = prepareDtoBody({ size: 5, ...unknownKeys(60_000) }, SearchTokensBody);
    expect(errors).toEqual({
      ...named(Object.keys(unknownKeys(20))),
      body: ['body has 59980 more unknown properties; only the first 20 are named'],
    });
  });

  it('counts across the objects it walks: 21 unknown properties over two rules', () => {
    const body = { name: 'a', type: 'private', rules: [rule(unknownKeys(11, 'a')), rule(unknownKeys(10, 'b'))] };
    const { errors } = prepareDtoBody(body, ApplicationBody);
    expect(errors).toEqual({
      ...named([...Object.keys(unknownKeys(11, 'rules[0].a')), ...Object.keys(unknownKeys(9, 'rules[1].b'))]),
      body: ['body has 1 more unknown properties; only the first 20 are named'],
    });
  });

  it('leaves 20 unknown properties to class-validator, which names each as before', () => {
    const prepared = prepareDtoBody({ size: 5, ...unknownKeys(20) }, SearchTokensBody);
    expect(prepared.errors).toBeNull();
    expect(prepared.body).toEqual({ size: 5, ...unknownKeys(20) });
  });

  it('still names a few properties of Object.prototype one by one', () => {
    const body = JSON.parse('{"size":5,"__proto__":1,"constructor":2}');
    expect(prepareDtoBody(body, SearchTokensBody).errors).toEqual(named(['__proto__', 'constructor']));
  });

  it('names an unknown property of 1,000,000 characters by its first 100', () => {
    const { errors } = prepareDtoBody({ ['x'.repeat(1_000_000)]: 1, ...unknownKeys(20) }, SearchTokensBody);
    expect(Object.keys(errors!)).toContain(`${'x'.repeat(100)}…`);
    expect(JSON.stringify(errors).length).toBeLessThan(2_000);
  });
});

describe('echoedName', () => {
  it.each<[string, string]>([
    ['a'.repeat(100), 'a'.repeat(100)],
    ['a'.repeat(101), `${'a'.repeat(100)}…`],
    [`${'a'.repeat(99)}😀b`, `${'a'.repeat(99)}…`],
  ])('%#', (name, echoed) => {
    expect(echoedName(name)).toBe(echoed);
  });
});
