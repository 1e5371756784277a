// The token types' own expressions evaluated natively must give exactly what Liquid gives, on any data.
import fc from 'fast-check';
import { TOKEN_TYPES, tokenTypeRules } from '@vault/domain';
import { LiquidExpressionEngine, NATIVE_BUILT_INS } from './liquid-expression-engine';

// A budget no loaded machine runs out of: this compares answers, the budget has its own specs.
const native = new LiquidExpressionEngine({ renderLimitMs: 10_000 });
const liquid = new LiquidExpressionEngine({ nativeBuiltIns: false, renderLimitMs: 10_000 });
const builtIns = new Set(
  TOKEN_TYPES.flatMap((type) => {
    const rules = tokenTypeRules(type);
    return [rules.defaultFingerprintExpression, ...(rules.defaultMask ? [rules.defaultMask] : []), ...rules.defaultSearchIndexes];
  }),
);
const expressions = [...NATIVE_BUILT_INS.keys()];

describe('native evaluation of the built-in expressions', () => {
  it('covers only built-in expressions, and every built-in one', () => {
    expect(new Set(expressions)).toEqual(builtIns);
  });

  it.each(expressions.flatMap((expression) =>
    ['123-45-6789', '4242424242424242', '12-3456789', '', '-', '--12--', 'ab-cd ef', 'Ünïcødé-١٢٣٤-5678', '👍-1234', 'null'].map((data) => [expression, data] as const),
  ))('%s on %j', (expression, data) => {
    expect(native.evaluate(expression, data)).toBe(liquid.evaluate(expression, data));
  });

  it.each(expressions.flatMap((expression) =>
    [{ email: 'a@example.com', z: [1, { b: null, a: true }] }, [1, '2'], 42, true, null].map((data) => [expression, data] as const),
  ))('%s on JSON data %j', (expression, data) => {
    expect(native.evaluate(expression, data)).toBe(liquid.evaluate(expression, data));
  });

  it('agrees with Liquid on any string or JSON data', () => {
    fc.assert(
      fc.property(fc.constantFrom(...expressions), fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.stringMatching(/^[0-9-]{0,20}$/), fc.jsonValue()), (expression, data) => {
        expect(native.evaluate(expression, data)).toBe(liquid.evaluate(expression, data));
      }),
      { numRuns: 500 },
    );
  });
});
