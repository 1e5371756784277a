// validateApplicationSettings: the list maxima, checked before any element is read, and messages that never quote a
// value the caller sent (only the catalogue's own permission names).
import { DomainError, type FieldErrors } from '../shared/errors';
import { validateApplicationSettings, type ApplicationInput } from './application.decide';

const NOW = new Date('2026-01-01T00:00:00Z');
const rule = (priority: number, permissions: unknown[] = ['token:read']) => ({ priority, container: '/', transform: 'mask', permissions });
const input = (overrides: Partial<ApplicationInput> = {}): ApplicationInput => ({ name: 'checkout', type: 'private', ...overrides });
const many = <T>(count: number, item: (i: number) => T): T[] => Array.from({ length: count }, (_, i) => item(i));

const errorsOf = (given: ApplicationInput): FieldErrors => {
  try {
    validateApplicationSettings(given, NOW);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors ?? {};
  }
  throw new Error('the settings were accepted');
};

describe('validateApplicationSettings accepts lists up to their maxima', () => {
  it.each<[string, ApplicationInput]>([
    ['100 rules', input({ rules: many(100, (i) => rule(i + 1)) })],
    ['a rule with 30 permissions (repeats included)', input({ rules: [rule(1, many(30, () => 'token:read'))] })],
    ['30 permissions (repeats are dropped)', input({ permissions: many(30, () => 'token:search') })],
  ])('%s', (_title, given) => {
    expect(() => validateApplicationSettings(given, NOW)).not.toThrow();
  });
});

describe('validateApplicationSettings refuses an oversized list by its length alone', () => {
  it.each<[string, ApplicationInput, FieldErrors]>([
    ['101 rules', input({ rules: many(101, (i) => rule(i + 1)) }), { rules: ['rules must hold at most 100 rules, not 101'] }],
    ['10,000 rules that are not even objects', input({ rules: many(10_000, () => 'x') }), { rules: ['rules must hold at most 100 rules, not 10000'] }],
    ['31 permissions', input({ permissions: many(31, () => 'token:read') }), { permissions: ['permissions must hold at most 30 permissions, not 31'] }],
    ['10,000 unknown permissions', input({ permissions: many(10_000, (i) => `p${i}`) }), { permissions: ['permissions must hold at most 30 permissions, not 10000'] }],
    ['a rule with 10,000 permissions', input({ rules: [rule(1), rule(2, many(10_000, () => 7))] }), { 'rules[1].permissions': ['rules[1].permissions must hold at most 30 permissions, not 10000'] }],
  ])('%s', (_title, given, expected) => {
    expect(errorsOf(given)).toEqual(expected);
  });
});

describe('validateApplicationSettings never quotes a value the caller sent', () => {
  it('names an unknown permission by its path only', () => {
    expect(errorsOf(input({ permissions: ['token:read', 'Zq9secret'] }))).toEqual({
      'permissions[1]': ['permissions[1] is not a permission of the catalogue (GET /permissions)'],
    });
  });

  it('names a rule permission that is no token permission by its path only', () => {
    expect(errorsOf(input({ rules: [rule(1, ['token:read', 'Zq9secret', 'application:read'])] }))).toEqual({
      'rules[0].permissions[1]': ['rules[0].permissions[1] must be a token permission (token:read, token:search, …), not another string.'],
      'rules[0].permissions[2]': ['rules[0].permissions[2] must be a token permission (token:read, token:search, …), not another string.'],
    });
  });

  it('reports a bad rule permission once, naming nothing the caller did not send, whatever the application type', () => {
    expect(errorsOf(input({ type: 'public', permissions: ['token:create'], rules: [rule(1, ['Zq9secret'])] }))).toEqual({
      'rules[0].permissions[0]': ['rules[0].permissions[0] must be a token permission (token:read, token:search, …), not another string.'],
    });
  });

  it('keeps the rules as given when their permissions are all token permissions', () => {
    const given = [{ description: 'all', ...rule(1, ['token:read', 'token:search']) }];
    expect(validateApplicationSettings(input({ rules: given }), NOW).rules).toEqual(given);
  });

  it('names a catalogue permission the type may not hold, which is no secret', () => {
    expect(errorsOf(input({ type: 'public', permissions: ['token:search'] }))).toEqual({
      'permissions[0]': ['permission "token:search" cannot be held by a public application'],
    });
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('treats %s as an unknown permission', (permission) => {
    expect(errorsOf(input({ permissions: [permission] }))).toEqual({
      'permissions[0]': ['permissions[0] is not a permission of the catalogue (GET /permissions)'],
    });
  });
});

describe('validateApplicationSettings bounds the strings of an application, so every list page stays small', () => {
  const container = (length: number) => `/${'a/'.repeat((length - 1) / 2)}`;

  it.each<[string, ApplicationInput]>([
    ['a 199-character container', input({ rules: [{ ...rule(1), container: container(199) }] })],
    ['100 rules on / that reveal and grant token:search, with 7-digit priorities', input({ rules: many(100, (i) => ({ ...rule(1_000_000 + i, ['token:search']), transform: 'reveal' })) })],
    ['a 200-emoji name (400 UTF-16 units)', input({ name: '🔑'.repeat(200) })],
    ['a name of 200 characters outside the BMP mixed with plain ones', input({ name: `a${'𝒜'.repeat(198)}b` })],
  ])('accepts %s', (_title, given) => {
    expect(() => validateApplicationSettings(given, NOW)).not.toThrow();
  });

  it.each<[string, ApplicationInput, FieldErrors]>([
    [
      'a container of a million characters',
      input({ rules: [rule(1), { ...rule(2), container: container(1_000_001) }] }),
      { 'rules[1].container': ['rules[1].container must be at most 200 characters long'] },
    ],
    [
      'a 201-character container',
      input({ rules: [{ ...rule(1), container: container(201) }] }),
      { 'rules[0].container': ['rules[0].container must be at most 200 characters long'] },
    ],
    [
      'rules whose JSON passes 16,384 characters (28 rules of 500-character descriptions)',
      input({ rules: many(28, (i) => ({ ...rule(i + 1), description: 'd'.repeat(500) })) }),
      { rules: [expect.stringMatching(/^rules must hold at most 16,384 characters of JSON together, not 16,\d{3}: shorten descriptions or containers, or merge rules$/)] },
    ],
    ['a 201-emoji name', input({ name: '🔑'.repeat(201) }), { name: ['name must be 1 to 200 characters long'] }],
    ['a 201-character name', input({ name: 'n'.repeat(201) }), { name: ['name must be 1 to 200 characters long'] }],
  ])('refuses %s', (_title, given, expected) => {
    expect(errorsOf(given)).toEqual(expected);
  });
});
