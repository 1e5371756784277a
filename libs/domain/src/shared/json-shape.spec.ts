import { FieldErrorCollector } from './errors';
import { echoedName, rejectUnknownProperties } from './json-shape';

const ALLOWED = ['name', 'type', 'data'];
const unknownKeys = (count: number, prefix = 'k') => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, {}] as const));
const errorsOf = (run: (errors: FieldErrorCollector) => void) => {
  const errors = new FieldErrorCollector();
  run(errors);
  return errors.toObject();
};
const notAllowed = (path: string, hint = '') => [`${path} is not an allowed property.${hint}`];

describe('rejectUnknownProperties', () => {
  it('names each of a few unknown properties, with its hint, and leaves allowed ones alone', () => {
    const body = { name: 'n', id: 1, colour: 2, constructor: 3 };
    expect(errorsOf((errors) => rejectUnknownProperties(body, ALLOWED, '', errors, { id: 'The service assigns it.' }))).toEqual({
      id: notAllowed('id', ' The service assigns it.'),
      colour: notAllowed('colour'),
      constructor: notAllowed('constructor'),
    });
  });

  it('names 20 unknown properties, the most it names', () => {
    expect(Object.keys(errorsOf((errors) => rejectUnknownProperties({ name: 'n', ...unknownKeys(20) }, ALLOWED, '', errors)))).toHaveLength(20);
  });

  it('names the first 20 of 60,000 unknown properties and counts the rest on body', () => {
    const body = { name: 'n', type: 't', ...unknownKeys(60_000) };
    const errors = errorsOf((collector) => rejectUnknownProperties(body, ALLOWED, '', collector));
    expect(Object.keys(errors)).toEqual([...Object.keys(unknownKeys(20)), 'body']);
    expect(errors.k0).toEqual(notAllowed('k0'));
    expect(errors.body).toEqual(['body has 59980 more properties that are not allowed; only the first 20 are named.']);
  });

  it('counts the rest of a nested object on its own path', () => {
    const errors = errorsOf((collector) => rejectUnknownProperties(unknownKeys(25), ALLOWED, 'configuration[3]', collector));
    expect(Object.keys(errors)[0]).toBe('configuration[3].k0');
    expect(errors['configuration[3]']).toEqual(['configuration[3] has 5 more properties that are not allowed; only the first 20 are named.']);
  });

  it('names at most 20 across the objects of one request', () => {
    const errors = errorsOf((collector) => {
      rejectUnknownProperties(unknownKeys(15, 'a'), ALLOWED, 'configuration[0]', collector);
      rejectUnknownProperties(unknownKeys(15, 'b'), ALLOWED, 'configuration[1]', collector);
      rejectUnknownProperties(unknownKeys(15, 'c'), ALLOWED, 'configuration[2]', collector);
    });
    expect(Object.keys(errors).filter((path) => /\.[abc]\d+$/.test(path))).toHaveLength(20);
    expect(errors['configuration[1]']).toEqual(['configuration[1] has 10 more properties that are not allowed; only the first 20 are named.']);
    expect(errors['configuration[2]']).toEqual(['configuration[2] has 15 more properties that are not allowed; only the first 20 are named.']);
  });

  it('names an unknown property by its first 100 characters', () => {
    const errors = errorsOf((collector) => rejectUnknownProperties({ ['x'.repeat(1_000_000)]: 1 }, ALLOWED, 'metadata', collector));
    const path = `metadata.${'x'.repeat(100)}…`;
    expect(errors).toEqual({ [path]: notAllowed(path) });
  });
});

describe('echoedName', () => {
  it.each<[string, string]>([
    ['a'.repeat(100), 'a'.repeat(100)],
    ['a'.repeat(101), `${'a'.repeat(100)}…`],
    [`${'a'.repeat(99)}😀b`, `${'a'.repeat(99)}…`],
    [`${'a'.repeat(98)}😀b`, `${'a'.repeat(98)}😀…`],
  ])('%#', (name, echoed) => {
    expect(echoedName(name)).toBe(echoed);
  });
});
