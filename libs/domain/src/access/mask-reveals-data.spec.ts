import { maskRevealsData } from './mask-reveals-data';

describe('maskRevealsData: a mask may not show the whole data', () => {
  it.each([
    ['the data itself', '555-44-3322', '555-44-3322'],
    ['without delimiters', '555443322', '555-44-3322'],
    ['wrapped in other text', 'X555443322X', '555-44-3322'],
    ['in another case', 'ADA LOVELACE', 'ada lovelace'],
    ['reversed', '2233-44-555', '555-44-3322'],
    ['interleaved with letters', '5a5a5a4a4a3a3a2a2', '555-44-3322'],
    ['in full-width digits', '５５５４４３３２２', '555-44-3322'],
    ['a JSON token as JSON', '{"a":"x1"}', { a: 'x1' }],
    ['every value of JSON data in a row', 'alice/hunter2', { user: 'alice', pw: 'hunter2' }],
    ['nested JSON values', 'card number 4242 4242 4242 4242 exp 12/30', { card: { number: '4242424242424242', exp: ['12', 30] } }],
    ['data held in JSON keys', '{"4111111111111111":null}', { '4111111111111111': null }],
    ['data without letters or digits, reversed', '*&^%$#@!', '!@#$%^&*'],
    ['data without letters or digits, spaced out', '! @ # $ % ^ & *', '!@#$%^&*'],
    ['a sharp s in upper case', 'STRASSE', 'straße'],
    ['a dotless i in upper case', 'IIII', 'ıııı'],
  ] as const)('%s', (_title, masked, data) => {
    expect(maskRevealsData(masked, data as never)).toBe(true);
  });

  it.each([
    ['the last four', 'XXX-XX-3322', '555-44-3322'],
    ['all but one digit', '55544332X', '555-44-3322'],
    ['one field of JSON data', 'Ada', { name: 'Ada', id: '7' }],
    ['the keys of JSON data only', 'name id', { name: 'Ada', id: '7' }],
    ['part of data without letters or digits', '!@#$', '!@#$%^&*'],
  ] as const)('allows %s', (_title, masked, data) => {
    expect(maskRevealsData(masked, data as never)).toBe(false);
  });
});
