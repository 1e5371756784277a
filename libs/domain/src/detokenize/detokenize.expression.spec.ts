import { ExpressionSyntaxError, findExpressions, MAX_FILTERS_LENGTH } from './detokenize.expression';

const ID = 'B0B0B0B0-0000-4000-8000-000000000001';
const id = ID.toLowerCase();
const ID2 = 'c1c1c1c1-0000-4000-8000-000000000002';

const summary = (text: string) => findExpressions(text).map(({ tokenId, filters, start, end }) => [tokenId, filters, start, end]);

describe('expressions in a string', () => {
  it.each([
    [`{{ ${ID} }}`, [[id, null, 0, 42]]],
    [`{{${ID}}}`, [[id, null, 0, 40]]],
    [`{{ token: ${ID} }}`, [[id, null, 0, 49]]],
    [`{{token:${ID}}}`, [[id, null, 0, 46]]],
    [`{{ TOKEN :${ID} }}`, [[id, null, 0, 49]]],
    [`{{ ${ID} | json: '$.number' }}`, [[id, "json: '$.number'", 0, 61]]],
    [`{{ ${ID}|last4}}`, [[id, 'last4', 0, 47]]],
    [`{{ ${ID} | json: "$['a b']" | reveal_last: 4, '*' }}`, [[id, `json: "$['a b']" | reveal_last: 4, '*'`, 0, 83]]],
    [`{{ ${ID} | pad_left: 12 , "0" }}`, [[id, 'pad_left: 12 , "0"', 0, 63]]],
    [`Card {{ ${ID} }}, exp {{ token: ${ID2} | last4 }}!`, [[id, null, 5, 47], [ID2, 'last4', 53, 110]]],
    [`{{{ ${ID} }}}`, [[id, null, 1, 43]]],
  ])('%s', (text, expected) => {
    expect(summary(text)).toEqual(expected);
  });

  it.each([
    ['Hello {{ name }}'],
    ['{{ 42 }}'],
    [`{{- ${ID} }}`],
    ['{{ deadbeef }}'],
    ['{{ tokens }}'],
    ['unclosed {{'],
    ['{% if x %}{{ data.name | upcase }}{% endif %}'],
    [''],
  ])('leaves %j as text', (text) => {
    expect(findExpressions(text)).toEqual([]);
  });
});

describe('a string that looks like detokenization but does not parse', () => {
  it.each([
    ['{{ token: not-a-uuid }}', 'at character 1 expects a token id (a UUID) (at character 11)'],
    [`{{ ${ID.slice(0, -1)} }}`, 'expects a token id (a UUID)'],
    [`{{ ${ID}x }}`, 'expects | or }} after the token id'],
    [`{{ ${ID}`, 'expects }}'],
    [`{{ ${ID} | }}`, 'expects a filter name'],
    [`{{ ${ID} | json: }}`, 'expects a quoted string or a number as filter argument'],
    [`{{ ${ID} | json: data }}`, 'expects a quoted string or a number as filter argument'],
    [`{{ ${ID} | json: '$.a }}`, 'has a quoted filter argument that is not closed'],
    [`{{ ${ID} | json: '}} {% for i in (1..9) %}' }}`, 'has a filter argument with {, } or \\, which are not allowed'],
    [`{{ ${ID} | json: '$[\\'a\\']' }}`, 'has a filter argument with {, } or \\, which are not allowed'],
    [`{{ ${ID} | upcase upcase }}`, 'expects }}'],
    [`ok {{ ${ID} }} then {{ token: 1234 }}`, 'at character 52 expects a token id'],
  ])('%s', (text, message) => {
    expect(() => findExpressions(text)).toThrow(ExpressionSyntaxError);
    expect(() => findExpressions(text)).toThrow(message);
  });

  it(`refuses a filter chain longer than ${MAX_FILTERS_LENGTH} characters`, () => {
    const chain = (filters: number) => Array(filters).fill('last4').join(' | ');
    expect(chain(125)).toHaveLength(997);
    expect(findExpressions(`{{ ${ID} | ${chain(125)} }}`)).toHaveLength(1);
    expect(() => findExpressions(`{{ ${ID} | ${chain(126)} }}`)).toThrow('has filters longer than 1,000 characters');
  });

  it('names positions, never the text', () => {
    const secret = 'Sup3r-Secret';
    for (const text of [`{{ token: ${secret} }}`, `{{ ${ID} | json: '${secret}`, `{{ ${ID} ${secret} }}`]) {
      expect(() => findExpressions(text)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('Sup3r') }));
    }
  });
});
