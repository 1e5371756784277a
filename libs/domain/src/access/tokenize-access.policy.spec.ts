import { DomainError } from '../shared/errors';
import type { PlannedToken } from '../tokenize/tokenize.plan';
import type { AccessRule, AccessTransform } from './access-rules';
import { assertShownNoMoreThan, cappedShowing, createRulesFor, mostRevealing, onBehalfDuplicate } from './tokenize-access.policy';

const rule = (priority: number, container: string, transform: AccessTransform, ...permissions: string[]): AccessRule => ({
  priority,
  container,
  transform,
  permissions,
});

/** A request of a tokenize body at `path`, as far as the policy reads it: where it would go. */
const planned = (path: string, containers: string[], leaf = false): PlannedToken =>
  ({ path, source: null, leaf, request: { draft: { containers } } }) as unknown as PlannedToken;

const refusal = (fn: () => unknown): DomainError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
};

describe('createRulesFor: a token:create rule for every request of a tokenize body', () => {
  const rules = [rule(1, '/pii/', 'reveal', 'token:create'), rule(2, '/pci/', 'mask', 'token:create')];

  it('answers the rule for each request, in body order', () => {
    expect(createRulesFor(rules, [planned('a', ['/pci/']), planned('b', ['/pii/x/'])])).toEqual([rules[1], rules[0]]);
  });

  it("refuses with one 403 naming a request's containers and a leaf itself", () => {
    const error = refusal(() => createRulesFor(rules, [planned('ok', ['/pii/']), planned('card', ['/hr/']), planned('note', ['/general/'], true)]));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toBe('No access rule of this application grants token:create on the containers of the token at card (and 1 more, named in errors).');
    expect(error.errors).toEqual({
      'card.containers': ["No access rule of this application grants token:create on this token's containers."],
      note: ["No access rule of this application grants token:create on this token's containers."],
    });
  });

  it('names a body that is one request `body`', () => {
    const error = refusal(() => createRulesFor(rules, [planned('', ['/hr/'])]));
    expect(error.message).toMatch(/at body\.$/);
    expect(Object.keys(error.errors!)).toEqual(['containers']);
  });
});

describe('mostRevealing and assertShownNoMoreThan: a reactor result shows the caller no more than its args did', () => {
  const rules = [rule(1, '/pci/', 'mask', 'token:read', 'token:create'), rule(2, '/', 'reveal', 'token:search')];

  it('names the first operation whose rule shows more than the cap, or null', () => {
    expect(mostRevealing(rules, ['/pci/'], 'mask')).toBe('token:search');
    expect(mostRevealing(rules, ['/pci/'], 'reveal')).toBeNull();
    expect(mostRevealing([rule(1, '/', 'mask', 'token:update')], ['/a/'], 'redact')).toBe('token:update');
  });

  it('leaves token:use out: its transform shows the caller nothing', () => {
    expect(mostRevealing([rule(1, '/', 'reveal', 'token:use')], ['/a/'], 'none')).toBeNull();
  });

  it('refuses with one 403 naming every request that would be shown more', () => {
    const masked = [rule(1, '/pci/', 'mask', 'token:read'), rule(2, '/general/', 'reveal', 'token:read')];
    const error = refusal(() => assertShownNoMoreThan([planned('a', ['/pci/']), planned('b', ['/general/']), planned('c', ['/general/x/'])], masked, 'mask'));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toBe("The token at b (and 1 more, named in errors) would be shown more revealingly than the tokens the reactor's args used.");
    expect(Object.keys(error.errors!)).toEqual(['b', 'c']);
  });

  it('lets through requests shown no more than the cap', () => {
    expect(() => assertShownNoMoreThan([planned('', ['/pci/'])], [rule(1, '/', 'mask', 'token:read')], 'mask')).not.toThrow();
  });
});

describe('cappedShowing: a token made or found for a reactor\'s invoking caller', () => {
  it.each<[string, AccessRule[], 'none' | AccessTransform, ReturnType<typeof cappedShowing>]>([
    ['its read rule, capped', [rule(1, '/', 'reveal', 'token:read')], 'mask', { transform: 'mask', idLevel: false }],
    ['a read rule below the cap', [rule(1, '/', 'redact', 'token:read')], 'reveal', { transform: 'redact', idLevel: false }],
    ['no read rule: id level', [rule(1, '/', 'reveal', 'token:search')], 'reveal', { transform: 'redact', idLevel: true }],
    ['a cap of none: id level', [rule(1, '/', 'reveal', 'token:read')], 'none', { transform: 'redact', idLevel: true }],
  ])('%s', (_title, rules, cap, showing) => {
    expect(cappedShowing(rules, ['/a/'], cap)).toEqual(showing);
  });
});

describe('onBehalfDuplicate: what deduplication for a reactor shows its invoking caller', () => {
  const tokenizer = [rule(1, '/', 'mask', 'token:create')];
  const existing = { containers: ['/pii/'] };

  it('without a cap, is the invoking caller\'s own deduplication, never more than the tokenizing application shows', () => {
    expect(onBehalfDuplicate(tokenizer, [rule(1, '/', 'reveal', 'token:create')], null, existing)).toEqual({ transform: 'mask', idLevel: false });
    expect(onBehalfDuplicate(tokenizer, [rule(1, '/', 'redact', 'token:create')], null, existing)).toEqual({ transform: 'redact', idLevel: false });
  });

  it('without a cap, does not exist for an invoking caller no token:create rule of which covers it', () => {
    expect(onBehalfDuplicate(tokenizer, [rule(1, '/pci/', 'reveal', 'token:create')], null, existing)).toBeNull();
  });

  it('with a cap, is shown by the invoking caller\'s read rule, capped', () => {
    expect(onBehalfDuplicate(tokenizer, [rule(1, '/', 'mask', 'token:read', 'token:create')], 'mask', existing)).toEqual({ transform: 'mask', idLevel: false });
  });

  it('with a cap, does not exist when any of the invoking caller\'s rules would show it more', () => {
    expect(onBehalfDuplicate(tokenizer, [rule(1, '/', 'mask', 'token:read'), rule(2, '/', 'reveal', 'token:search')], 'mask', existing)).toBeNull();
  });
});
