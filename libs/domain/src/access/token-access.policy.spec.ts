import { DomainError } from '../shared/errors';
import type { AccessRule } from './access-rules';
import {
  accessScope,
  assertMayRederive,
  assertMoveRevealsNoMore,
  deduplicationRule,
  patchRederives,
  insightInto,
  ruleFor,
  ruleToPlace,
} from './token-access.policy';

const ALL = ['token:create', 'token:read', 'token:update', 'token:search', 'token:delete'];
const rule = (priority: number, container: string, transform: AccessRule['transform'], permissions = ALL): AccessRule => ({
  priority,
  container,
  transform,
  permissions,
});

const forbiddenMessage = (fn: () => void): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('forbidden');
    return (error as DomainError).message;
  }
  throw new Error('expected a 403');
};

describe('ruleFor: the rule a caller acts under on an existing token', () => {
  const rules = [rule(1, '/pii/', 'mask', ['token:read']), rule(2, '/', 'reveal', ['token:read', 'token:delete'])];

  it('is the first rule granting the permission on one of its containers', () => {
    expect(ruleFor(rules, { containers: ['/pii/high/'] }, 'token:read')).toBe(rules[0]);
    expect(ruleFor(rules, { containers: ['/pii/high/'] }, 'token:delete')).toBe(rules[1]);
  });

  it.each([
    ['no rule grants the permission', { containers: ['/pii/'] }, 'token:update'],
    ['the token is missing', null, 'token:read'],
  ] as const)('answers 404 when %s: an uncovered token is as missing as an unknown one', (_title, token, permission) => {
    expect(() => ruleFor(rules, token, permission)).toThrow(expect.objectContaining({ kind: 'not_found', message: 'Token was not found.' }));
  });
});

describe('ruleToPlace: the rule a caller puts a token in these containers under', () => {
  const rules = [rule(1, '/pii/', 'mask', ['token:create', 'token:update'])];

  it('is the first rule granting token:create or token:update there', () => {
    expect(ruleToPlace(rules, ['/pii/high/'], 'token:create')).toBe(rules[0]);
    expect(ruleToPlace(rules, ['/pii/high/'], 'token:update')).toBe(rules[0]);
  });

  it.each([
    ['token:create', "No access rule of this application grants token:create on the token's containers."],
    ['token:update', "No access rule of this application grants token:update on the token's new containers."],
  ] as const)('refuses %s outside every rule with 403', (permission, message) => {
    expect(forbiddenMessage(() => ruleToPlace(rules, ['/pci/'], permission))).toBe(message);
  });
});

describe('insightInto: what each operation shows of a token in these containers', () => {
  it.each([
    ['no rule covers it', [rule(1, '/pci/', 'reveal')], ['/pii/high/'], { 'token:read': 'none' }],
    ['the first covering rule for each permission decides', [rule(1, '/pii/', 'mask'), rule(2, '/', 'reveal')], ['/pii/high/'], { 'token:read': 'mask', 'token:search': 'mask' }],
    ['a later rule decides for a permission the first lacks', [rule(1, '/pii/', 'mask', ['token:read']), rule(2, '/', 'reveal', ['token:search'])], ['/pii/'], { 'token:read': 'mask', 'token:search': 'reveal' }],
    ['the first rule covering any of its containers decides', [rule(1, '/pci/', 'redact'), rule(2, '/x/', 'reveal')], ['/pci/', '/x/y/'], { 'token:read': 'redact' }],
  ] as const)('%s', (_title, rules, containers, insight) => {
    expect(insightInto(rules, containers)).toMatchObject(insight);
  });

  it('leaves token:delete out: deleting shows nothing of the data', () => {
    expect(Object.keys(insightInto([rule(1, '/', 'reveal')], ['/a/'])).sort()).toEqual(['token:create', 'token:read', 'token:search', 'token:update', 'token:use']);
  });
});

describe('deduplicationRule: an existing token is returned only under a token:create rule on ITS containers', () => {
  const pii = [rule(1, '/pii/', 'reveal', ['token:create', 'token:read'])];

  it('does not exist for a caller whose create rule covers only the requested containers', () => {
    expect(deduplicationRule(pii, { containers: ['/general/high/'] })).toBeNull();
  });

  it('is shown under the rule covering the existing token', () => {
    expect(deduplicationRule([rule(1, '/general/', 'mask'), ...pii], { containers: ['/general/high/'] })?.transform).toBe('mask');
  });

  it('needs token:create, not only token:read', () => {
    expect(deduplicationRule([rule(1, '/', 'reveal', ['token:read'])], { containers: ['/general/high/'] })).toBeNull();
  });
});

describe('accessScope: the container condition of a search or a deduplication lookup', () => {
  it.each([
    ['no grant: nothing', [rule(1, '/', 'reveal', ['token:read'])], 'nothing'],
    ['a grant on / needs no condition', [rule(1, '/pii/', 'mask'), rule(2, '/', 'redact')], null],
    ['one grant: its subtree', [rule(1, '/pii/', 'mask')], { kind: 'container', path: '/pii/', descendants: true }],
    [
      'several grants: any of them, nested ones folded into their parent',
      [rule(1, '/pii/', 'mask'), rule(2, '/pii/high/', 'reveal'), rule(3, '/pci/', 'redact')],
      { kind: 'or', children: [{ kind: 'container', path: '/pii/', descendants: true }, { kind: 'container', path: '/pci/', descendants: true }] },
    ],
  ] as const)('%s', (_title, rules, scope) => {
    expect(accessScope(rules, 'token:search')).toEqual(scope);
  });
});

describe('assertMayRederive: changing what is derived from data needs reveal, unless new data is given', () => {
  const ssn = { type: 'social_security_number' as const, mask: '{{ data | reveal_last: 4 }}', search_indexes: ['{{ data }}'], fingerprint_expression: "{{ data | remove: '-' }}" };

  it.each([
    ['mask', { mask: '{{ data }}' }],
    ['search_indexes', { search_indexes: ['{{ data | slice: 0, 3 }}'] }],
    ['fingerprint_expression', { fingerprint_expression: '{{ data | slice: 0, 3 }}' }],
    ['mask, search_indexes', { mask: null, search_indexes: null }],
  ])('a mask rule changing %s is a 403 naming it', (fields, patch) => {
    const current = { ...ssn, mask: '{{ data | reveal: 1, 0 }}', search_indexes: ['{{ data | last4 }}'] };
    expect(forbiddenMessage(() => assertMayRederive(rule(1, '/', 'mask'), patch, current))).toContain(fields);
  });

  it.each([
    ['a reveal rule', rule(1, '/', 'reveal'), { mask: '{{ data | reveal: 2, 2 }}' }],
    ['new data given', rule(1, '/', 'redact'), { data: '111-22-3333', mask: '{{ data | reveal: 2, 2 }}' }],
    ['the same values sent again', rule(1, '/', 'mask'), { mask: ssn.mask, search_indexes: [...ssn.search_indexes] }],
    ['null for a field already at its default', rule(1, '/', 'mask'), { mask: null }],
    ['other fields only', rule(1, '/', 'redact'), { metadata: { a: 'b' }, containers: ['/x/'] }],
  ])('allows the patch with %s', (_title, updateRule, patch) => {
    expect(() => assertMayRederive(updateRule, patch, ssn)).not.toThrow();
  });
});

describe('patchRederives: only new data or a changed expression re-evaluates anything', () => {
  const ssn = { type: 'social_security_number' as const, mask: '{{ data | reveal_last: 4 }}', search_indexes: ['{{ data }}'], fingerprint_expression: "{{ data | remove: '-' }}" };
  it.each([
    [{ metadata: { a: 'b' }, containers: ['/x/'], expires_at: null }, false],
    [{ mask: ssn.mask }, false],
    [{ data: '111-22-3333' }, true],
    [{ search_indexes: ['{{ data | last4 }}'] }, true],
    [{ fingerprint_expression: null }, false],
    [{ fingerprint_expression: '{{ data }}' }, true],
  ])('%j → %s', (patch, rederives) => {
    expect(patchRederives(patch, ssn)).toBe(rederives);
  });
});

describe('assertMoveRevealsNoMore: a container move without data never shows the caller more', () => {
  const rules = [rule(1, '/open/', 'reveal'), rule(2, '/', 'mask')];

  it('refuses moving a masked token under the caller\'s reveal rule', () => {
    expect(forbiddenMessage(() => assertMoveRevealsNoMore(rules, { containers: ['/open/'] }, ['/pii/'], ['/open/']))).toMatch(/reveal instead of mask/);
  });

  it('refuses adding a container that a more revealing rule covers', () => {
    expect(() => assertMoveRevealsNoMore(rules, { containers: ['/pii/', '/open/x/'] }, ['/pii/'], ['/pii/', '/open/x/'])).toThrow(DomainError);
  });

  it.each([
    ['token:delete', rule(2, '/', 'reveal', ['token:delete'])],
    ['token:use', rule(2, '/', 'reveal', ['token:use'])],
    ['token:create', rule(2, '/', 'reveal', ['token:create'])],
  ])('compares operation by operation: a reveal rule for %s elsewhere does not license raising token:read', (_title, other) => {
    const attacker = [rule(1, '/secret/', 'mask', ['token:read', 'token:update']), other, rule(3, '/open/', 'reveal', ['token:read', 'token:update'])];
    expect(forbiddenMessage(() => assertMoveRevealsNoMore(attacker, { containers: ['/open/'] }, ['/secret/'], ['/open/']))).toMatch(/token:(read|update) rule show it as reveal instead of mask/);
  });

  it('refuses making a token searchable that no search rule covered', () => {
    const searcher = [rule(1, '/a/', 'mask', ['token:read', 'token:update']), rule(2, '/b/', 'mask', ['token:read', 'token:update', 'token:search'])];
    expect(() => assertMoveRevealsNoMore(searcher, { containers: ['/b/'] }, ['/a/'], ['/b/'])).toThrow(DomainError);
  });

  it.each([
    ['to a container shown the same', ['/pii/'], ['/pci/']],
    ['to one shown less', ['/open/'], ['/pci/']],
  ])('allows a move %s', (_title, before, after) => {
    expect(() => assertMoveRevealsNoMore(rules, { containers: after }, before, after)).not.toThrow();
  });

  it('allows any move that brings new data: the caller knows it', () => {
    expect(() => assertMoveRevealsNoMore(rules, { containers: ['/open/'], data: '111-22-3333' }, ['/pii/'], ['/open/'])).not.toThrow();
  });
});
