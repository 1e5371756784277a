import { DomainError } from '../shared/errors';
import { specEngine } from '../tokens/token.builders';
import type { JsonValue } from '../tokens/token-types';
import { planDetokenize } from './detokenize.plan';
import { detokenize, detokenizedValue, detokenizeSteps, TOKEN_NOT_FOUND_MESSAGE, type TokenView } from './detokenize.values';

const CARD_ID = 'b0b0b0b0-0000-4000-8000-000000000001';
const SSN_ID = 'c1c1c1c1-0000-4000-8000-000000000002';
const OTHER_ID = 'd2d2d2d2-0000-4000-8000-000000000003';
const CARD = { number: '4242424242424242', exp: 12 };

const failure = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('It succeeded');
};

describe('detokenizedValue', () => {
  it('is the shown value itself, of any JSON type, without filters', () => {
    expect(detokenizedValue(CARD, null, specEngine)).toBe(CARD);
    expect(detokenizedValue(42, null, specEngine)).toBe(42);
  });

  it('is the string the engine renders for {{ data | <filters> }} with filters', () => {
    expect(detokenizedValue('123-45-6789', 'reveal_last: 4', specEngine)).toBe('XXX-XX-6789');
    expect(detokenizedValue('ada', 'upcase', specEngine)).toBe('ADA');
  });

  it("throws the engine's error when the filters fail", () => {
    expect(() => detokenizedValue('x', 'fails', specEngine)).toThrow('The expression failed while rendering.');
  });
});

describe('detokenize: the data as the caller rule shows it', () => {
  const revealed = (data: JsonValue): TokenView => ({ transform: 'reveal', data });
  const views = (entries: Array<[string, TokenView]>) => new Map(entries);
  const body = { card: `{{ ${CARD_ID} }}`, line: `SSN {{ token: ${SSN_ID} | upcase }} / {{ ${CARD_ID} }}` };

  it('reveal gives the data (its JSON type kept when whole), mask gives the mask, through the filters', () => {
    const plan = planDetokenize(body);
    const rendered = detokenize(plan, views([[CARD_ID, revealed(CARD)], [SSN_ID, { transform: 'mask', masked: 'xxx-xx-6789' }]]), specEngine);
    expect(rendered).toEqual({ card: CARD, line: `SSN XXX-XX-6789 / ${JSON.stringify(CARD)}` });
  });

  it('answers one 400 naming every path whose token is missing, with one message for unknown and uncovered tokens', () => {
    const plan = planDetokenize({ a: `{{ ${OTHER_ID} }}`, b: [`{{ ${OTHER_ID} }} {{ ${OTHER_ID} }}`], c: `{{ ${CARD_ID} }}` });
    const error = failure(() => detokenize(plan, views([[CARD_ID, { transform: 'redact' }]]), specEngine));
    expect(error.kind).toBe('validation');
    expect(error.errors).toEqual({ a: [TOKEN_NOT_FOUND_MESSAGE], 'b[0]': [TOKEN_NOT_FOUND_MESSAGE] });
  });

  it.each([
    ['redact', { transform: 'redact' } as TokenView],
    ['mask on a token without a mask', { transform: 'mask', masked: null } as TokenView],
  ])('answers 403 naming the path for %s', (_, view) => {
    const plan = planDetokenize({ fine: `{{ ${CARD_ID} }}`, hidden: [`x {{ ${SSN_ID} | upcase }}`] });
    const error = failure(() => detokenize(plan, views([[CARD_ID, revealed(CARD)], [SSN_ID, view]]), specEngine));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toBe('The access rule that applies to the token at hidden[0] does not show its data.');
  });

  it('answers one 400 naming every path whose filters failed, without the data', () => {
    const plan = planDetokenize({ a: `{{ ${CARD_ID} | fails }}`, b: `{{ ${CARD_ID} | upcase }}` });
    const error = failure(() => detokenize(plan, views([[CARD_ID, revealed('Sup3r-Secret')]]), specEngine));
    expect(error.errors).toEqual({ a: ['The filters of a detokenization expression failed: The expression failed while rendering.'] });
    expect(JSON.stringify(error.errors)).not.toContain('Sup3r');
  });
});

describe('detokenizeSteps', () => {
  it('yields after each expression with filters, and returns what detokenize returns', () => {
    const plan = planDetokenize([`{{ ${CARD_ID} }}`, `{{ ${CARD_ID} | upcase }}`, `x {{ ${CARD_ID} | last4 }}`]);
    const views = new Map<string, TokenView>([[CARD_ID, { transform: 'reveal', data: 'ab-1234' }]]);
    const steps = detokenizeSteps(plan, views, specEngine);
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    expect(yields).toBe(2);
    expect(step.value).toEqual(['ab-1234', 'AB-1234', 'x 1234']);
    expect(detokenize(plan, views, specEngine)).toEqual(step.value);
  });
});
