import { DomainError } from '../shared/errors';
import { planDetokenize } from '../detokenize/detokenize.plan';
import type { AccessRule } from './access-rules';
import { assertShapingRevealed, cappedTransform, detokenizeAccess, leastInsight, SHAPING_NEEDS_REVEAL_MESSAGE, type UseInsight } from './use-insight';

const CARD_ID = 'b0b0b0b0-0000-4000-8000-000000000001';
const SSN_ID = 'c1c1c1c1-0000-4000-8000-000000000002';
const MISSING_ID = 'd2d2d2d2-0000-4000-8000-000000000003';

const shapingFailure = (body: unknown, read: Record<string, UseInsight>): DomainError | null => {
  try {
    assertShapingRevealed(planDetokenize(body), new Map(Object.entries(read)));
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
};

describe('assertShapingRevealed', () => {
  it.each([
    ['the whole string, no filters', { args: { card: `{{ ${CARD_ID} }}` } }, 'mask'],
    ['the whole string with the token: prefix', { args: { card: `{{ token: ${CARD_ID} }}` } }, 'redact'],
    ['the whole string for a token with no read rule', { args: { card: `{{ ${CARD_ID} }}` } }, 'none'],
    ['filters on a revealed token', { args: { card: `{{ ${CARD_ID} | slice: 0, 4 }}` } }, 'reveal'],
    ['embedding a revealed token', { args: { email: `a@{{ ${CARD_ID} }}` } }, 'reveal'],
  ] as const)('allows %s', (_, body, read) => {
    expect(shapingFailure(body, { [CARD_ID]: read })).toBeNull();
  });

  it.each([
    ['filters', { args: { card: `{{ ${CARD_ID} | slice: 0, 4 }}` } }, 'mask', 'args.card'],
    ['embedding', { args: { email: `a@{{ ${CARD_ID} }}` } }, 'mask', 'args.email'],
    ['a trailing blank', { args: { card: `{{ ${CARD_ID} }} ` } }, 'redact', 'args.card'],
    ['filters with no read rule', { args: [`{{ ${CARD_ID} | last4 }}`] }, 'none', 'args[0]'],
  ] as const)('refuses %s on a token the read rule does not reveal: 403 naming the path', (_, body, read, path) => {
    const error = shapingFailure(body, { [CARD_ID]: read })!;
    expect(error.kind).toBe('forbidden');
    expect(error.errors).toEqual({ [path]: [SHAPING_NEEDS_REVEAL_MESSAGE] });
  });

  it('names every shaping path, and none whose token is revealed or missing (left to the 400)', () => {
    const body = { a: `{{ ${CARD_ID} | last4 }}`, b: `x{{ ${SSN_ID} }}`, c: `x{{ ${MISSING_ID} }}`, d: `{{ ${SSN_ID} }}` };
    const error = shapingFailure(body, { [CARD_ID]: 'reveal', [SSN_ID]: 'mask' })!;
    expect(Object.keys(error.errors!)).toEqual(['b']);
    expect(error.message).not.toContain(SSN_ID);
  });
});

describe('leastInsight and cappedTransform', () => {
  it('is the least revealing transform, null without tokens', () => {
    expect(leastInsight([])).toBeNull();
    expect(leastInsight(['reveal', 'mask', 'reveal'])).toBe('mask');
    expect(leastInsight(['reveal', 'none', 'redact'])).toBe('none');
  });

  it.each([
    ['reveal', 'mask', 'mask'],
    ['mask', 'reveal', 'mask'],
    ['reveal', 'reveal', 'reveal'],
    ['none', 'reveal', 'redact'],
    ['reveal', 'none', 'redact'],
  ] as const)('shows a %s rule capped at %s as %s', (rule, cap, shown) => {
    expect(cappedTransform(rule, cap)).toBe(shown);
  });
});

describe('detokenizeAccess: how a detokenization hands a token over', () => {
  const rules: AccessRule[] = [
    { priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:use'] },
    { priority: 2, container: '/ops/', transform: 'redact', permissions: ['token:use'] },
  ];

  it.each([
    ['a read, under the read rule', ['/pci/'], 'token:read', { shown: 'mask', read: 'mask' }],
    ['a use, whole: the data goes to the code', ['/pci/'], 'token:use', { shown: 'reveal', read: 'mask' }],
    ['a use without a read rule, whose read is none', ['/ops/'], 'token:use', { shown: 'reveal', read: 'none' }],
  ] as const)('%s', (_title, containers, permission, access) => {
    expect(detokenizeAccess(rules, containers, permission)).toEqual(access);
  });

  it('is null when no rule for the permission covers the token: it is as missing as an unknown one', () => {
    expect(detokenizeAccess(rules, ['/ops/'], 'token:read')).toBeNull();
    expect(detokenizeAccess(rules, ['/hr/'], 'token:use')).toBeNull();
  });
});
