import { DomainError, FieldErrorCollector, type FieldErrors } from '../shared/errors';
import {
  allowedContainers,
  applyTransform,
  effectiveRules,
  selectRule,
  validateAccessRules,
  type AccessRule,
  type AccessTransform,
} from './access-rules';

const rule = (priority: number, container: string, transform: AccessTransform, ...permissions: string[]): AccessRule => ({
  priority,
  container,
  transform,
  permissions,
});

// Deliberately out of order: priority decides, not position.
const rules = [
  rule(30, '/', 'redact', 'token:read', 'token:search'),
  rule(10, '/pci/high/', 'reveal', 'token:read'),
  rule(20, '/pci/', 'mask', 'token:read', 'token:search'),
  rule(5, '/pii/', 'reveal', 'token:update'),
];

describe('selectRule', () => {
  it.each([
    [['/pci/high/'], 'token:read', 10],
    [['/pci/high/cards/'], 'token:read', 10],
    [['/pci/low/'], 'token:read', 20],
    [['/pci/'], 'token:read', 20],
    [['/pcix/'], 'token:read', 30],
    [['/general/', '/pci/high/'], 'token:read', 10],
    [['/pci/high/'], 'token:search', 20], // the reveal rule covers it but lacks the permission: it does not block
    [['/pii/high/'], 'token:read', 30], // covered by priority 5, which only grants update
    [['/pii/high/'], 'token:update', 5],
    [['/general/'], 'token:update', null],
    [['/pci/high/'], 'token:delete', null],
  ])('a token in %j, for %s, gets the rule of priority %p', (containers, permission, priority) => {
    expect(selectRule(rules, containers, permission)?.priority ?? null).toBe(priority);
  });
});

describe('effectiveRules', () => {
  it('is the application\'s rules, by priority, when it has any', () => {
    expect(effectiveRules({ permissions: ['token:read'], rules }).map((r) => r.priority)).toEqual([5, 10, 20, 30]);
  });

  it('is one mask rule on / with the token permissions, when it has none', () => {
    expect(effectiveRules({ permissions: ['token:read', 'token:search', 'application:read'], rules: [] })).toEqual([
      { priority: 1, container: '/', transform: 'mask', permissions: ['token:read', 'token:search'] },
    ]);
    expect(effectiveRules({ permissions: ['token:create'] })).toHaveLength(1);
  });

  it('is empty for an application without token permissions or rules', () => {
    expect(effectiveRules({ permissions: ['application:read'], rules: [] })).toEqual([]);
  });
});

describe('applyTransform', () => {
  const ssn = { type: 'social_security_number' as const };
  const json = { type: 'token' as const };

  it.each([
    ['reveal', ssn, { plaintext: '123-45-6789', mask: null }, '123-45-6789'],
    ['reveal', json, { plaintext: '{"name":"Ada","n":1}' }, { name: 'Ada', n: 1 }],
    ['mask', ssn, { mask: 'XXX-XX-6789' }, 'XXX-XX-6789'],
    ['mask', json, { mask: null }, undefined],
    ['redact', ssn, { plaintext: '123-45-6789', mask: 'XXX-XX-6789' }, undefined],
  ] as const)('%s of %j opened as %j gives %j', (transform, token, opened, data) => {
    expect(applyTransform({ transform }, token, opened)).toEqual(data);
  });

  it('needs the plaintext to reveal', () => {
    expect(() => applyTransform({ transform: 'reveal' }, ssn, { mask: 'XXX-XX-6789' })).toThrow(/decrypted data/);
  });
});

describe('allowedContainers', () => {
  it('lists where a permission is granted, in the order rules are tried, without shadowed grants', () => {
    expect(allowedContainers(rules, 'token:read')).toEqual([
      { container: '/pci/high/', transform: 'reveal', priority: 10 },
      { container: '/pci/', transform: 'mask', priority: 20 },
      { container: '/', transform: 'redact', priority: 30 },
    ]);
    const shadowed = [rule(1, '/', 'mask', 'token:search'), rule(2, '/pci/', 'reveal', 'token:search')];
    expect(allowedContainers(shadowed, 'token:search')).toEqual([{ container: '/', transform: 'mask', priority: 1 }]);
  });

  it('skips rules without the permission, so they never hide a later grant', () => {
    expect(allowedContainers(rules, 'token:search')).toEqual([
      { container: '/pci/', transform: 'mask', priority: 20 },
      { container: '/', transform: 'redact', priority: 30 },
    ]);
    expect(allowedContainers(rules, 'token:delete')).toEqual([]);
  });
});

describe('validateAccessRules', () => {
  const valid = { priority: 1, container: '/PCI/', transform: 'reveal', permissions: ['token:read'] };
  const errorsOf = (input: unknown): FieldErrors => {
    try {
      validateAccessRules(input);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).errors!;
    }
    throw new Error('The rules were accepted');
  };

  it('returns the rules with lower-case containers', () => {
    expect(validateAccessRules([{ ...valid, description: 'cards' }])).toEqual([
      { description: 'cards', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] },
    ]);
  });

  it.each([
    [{ ...valid, priority: 0 }, 'rules[0].priority', 'integer of at least 1'],
    [{ ...valid, priority: 1.5 }, 'rules[0].priority', 'integer of at least 1'],
    [{ ...valid, priority: '1' }, 'rules[0].priority', 'integer of at least 1'],
    [{ ...valid, container: 'pci' }, 'rules[0].container', 'must be a path'],
    [{ ...valid, container: undefined }, 'rules[0].container', 'must be a path'],
    [{ ...valid, transform: 'encrypt' }, 'rules[0].transform', 'mask, redact, reveal'],
    [{ ...valid, permissions: [] }, 'rules[0].permissions', 'non-empty array'],
    [{ ...valid, permissions: ['token:read', 'application:read'] }, 'rules[0].permissions[1]', 'must be a token permission'],
    [{ ...valid, permissions: ['token:fly'] }, 'rules[0].permissions[0]', 'must be a token permission'],
    [{ ...valid, description: 5 }, 'rules[0].description', 'must be a string'],
    [{ ...valid, description: 'd'.repeat(501) }, 'rules[0].description', 'at most 500'],
    [{ ...valid, effect: 'allow' }, 'rules[0].effect', 'not an allowed property'],
    ['rule', 'rules[0]', 'must be an object'],
  ])('%j is a 400 on %s', (input, path, message) => {
    expect(errorsOf([input])[path]).toEqual([expect.stringContaining(message)]);
  });

  it('refuses a priority used twice, on the later rule', () => {
    expect(errorsOf([valid, { ...valid, container: '/pii/' }])).toEqual({
      'rules[1].priority': ['priority 1 is already used by rules[0].'],
    });
  });

  it('refuses rules that are not a list', () => {
    expect(errorsOf({ priority: 1 })).toEqual({ rules: ['rules must be an array of access rules, not an object.'] });
  });

  it('reports into a caller\'s collector under its path, keeping the rules aligned with their indexes', () => {
    const errors = new FieldErrorCollector();
    const read = validateAccessRules([{ ...valid, transform: 'x' }, { ...valid, priority: 2 }], 'body.rules', errors);
    expect(errors.toObject()).toEqual({ 'body.rules[0].transform': [expect.stringContaining('must be one of')] });
    expect(read[1]).toMatchObject({ priority: 2, container: '/pci/' });
  });
});
