// The domain's detokenization with the real Liquid engine: what a POST /detokenize body renders to, or its 400.
import { DomainError, detokenize, planDetokenize, type FieldErrors, type TokenView } from '@vault/domain';
import { LiquidExpressionEngine } from './liquid-expression-engine';

const engine = new LiquidExpressionEngine();
const CARD_ID = 'b0b0b0b0-0000-4000-8000-000000000001';
const SSN_ID = 'c1c1c1c1-0000-4000-8000-000000000002';
const CARD = { number: '4242424242424242', exp: { month: 12, year: 2030 }, holder: 'Ada Sup3r-Secret' };
const views = new Map<string, TokenView>([
  [CARD_ID, { transform: 'reveal', data: CARD }],
  [SSN_ID, { transform: 'mask', masked: 'XXX-XX-6789' }],
]);

const run = (body: unknown): unknown => detokenize(planDetokenize(body, { engine }), views, engine);

const errorsOf = (body: unknown): FieldErrors => {
  try {
    run(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).errors!;
  }
  throw new Error('The body was accepted');
};

describe('detokenizing with Liquid filters', () => {
  it.each([
    [`{{ ${CARD_ID} }}`, CARD],
    [`{{ token: ${CARD_ID} | json: '$.number' }}`, '4242424242424242'],
    [`{{ ${CARD_ID} | json: '$.number' | reveal_last: 4 }}`, 'XXXXXXXXXXXX4242'],
    [`{{ ${CARD_ID} | json: '$.exp.month' }}`, '12'],
    [`{{ ${CARD_ID} | json: '$.exp' }}`, '{"month":12,"year":2030}'],
    [`{{ ${CARD_ID} | json: '$.missing' }}`, ''],
    [`{{ ${CARD_ID} | json: "$['holder']" | upcase }}`, 'ADA SUP3R-SECRET'],
    [`exp {{ ${CARD_ID} | json: '$.exp.month' }}/{{ ${CARD_ID} | json: '$.exp.year' }}`, 'exp 12/2030'],
    [`{{ ${SSN_ID} }}`, 'XXX-XX-6789'],
    [`{{ ${SSN_ID} | last4 }}`, '6789'],
    [`{{ ${SSN_ID} | json: '$.number' }}`, ''],
  ])('%s', (expression, expected) => {
    expect(run({ value: expression })).toEqual({ value: expected });
  });

  it('names an unknown filter before any token is read', () => {
    expect(errorsOf({ a: [`{{ ${CARD_ID} | no_such_filter }}`] })).toEqual({
      'a[0]': ['The filters of a detokenization expression do not parse: an unknown filter (line 1, column 1).'],
    });
  });

  it('names a bad JSONPath with its problem, never the data', () => {
    const errors = errorsOf({ card: `{{ ${CARD_ID} | json: '$..holder' }}` });
    expect(errors).toEqual({
      card: [expect.stringContaining('json: descendant segments (..) are not supported at character 3 of the path')],
    });
    expect(JSON.stringify(errors)).not.toContain('Sup3r');
  });
});
