import { bodyFieldPath, bodyIndexPath, bodyKeyPath, MAX_BODY_VALUES } from './body-path';
import { planDetokenize } from '../detokenize/detokenize.plan';
import { planTokenize } from './tokenize.plan';

describe('body paths', () => {
  it.each([
    ['', 'card', 'card'],
    ['card', 'number', 'card.number'],
    ['[2]', 'card_number-2', '[2].card_number-2'],
    ['', 'first name', '["first name"]'],
    ['card', 'a.b', 'card["a.b"]'],
    ['', '0', '["0"]'],
    ['', '', '[""]'],
    ['', '__proto__', '__proto__'],
    ['', 'say "hi"\\', '["say \\"hi\\"\\\\"]'],
    ['', 'line\nbreak', '["line\\u000Abreak"]'],
    ['', 'rtl\u202Eoverride', '["rtl\\u202Eoverride"]'],
    ['', 'para\u2029graph', '["para\\u2029graph"]'],
    ['', 'lone\uD800', '["lone\\uD800"]'],
    ['', 'straße', '["straße"]'],
    ['', '😀', '["😀"]'],
  ])('%j + key %j is %s', (parent, key, expected) => {
    expect(bodyKeyPath(parent, key)).toBe(expected);
  });

  it('shows the first 100 characters of a long key, and marks the cut outside the quotes', () => {
    const path = bodyKeyPath('card', `${'a'.repeat(100)}"]. Injected: ${'x'.repeat(1_000_000)}`);
    expect(path).toBe(`card["${'a'.repeat(100)}"…]`);
    expect(bodyKeyPath('', 'b'.repeat(101))).toBe(`["${'b'.repeat(100)}"…]`);
    expect(bodyKeyPath('', 'b'.repeat(100))).toBe('b'.repeat(100));
  });

  it('counts characters, not UTF-16 units, when cutting', () => {
    expect(bodyKeyPath('', '😀'.repeat(101))).toBe(`["${'😀'.repeat(100)}"…]`);
  });

  it('writes array items as [i] and joins a validator field to its place', () => {
    expect(bodyIndexPath('', 3)).toBe('[3]');
    expect(bodyIndexPath('cards', 0)).toBe('cards[0]');
    expect(bodyFieldPath('', 'data')).toBe('data');
    expect(bodyFieldPath('[2]', 'data')).toBe('[2].data');
    expect(bodyFieldPath('card', 'containers[0]')).toBe('card.containers[0]');
  });
});

describe('bounded bodies (a walk past MAX_BODY_VALUES is refused before it costs more)', () => {
  const engine = { validate: () => null, evaluate: () => '' };

  it.each([
    ['tokenize, nulls', () => planTokenize(new Array(MAX_BODY_VALUES).fill(null), { now: new Date(), engine })],
    ['detokenize, strings', () => planDetokenize(new Array(MAX_BODY_VALUES).fill('plain text'))],
    ['detokenize, empty objects', () => planDetokenize({ list: new Array(MAX_BODY_VALUES).fill({}) })],
  ])('refuses a %s body of more than MAX_BODY_VALUES values with a 400 on body', (_kind, plan) => {
    expect(plan).toThrow(expect.objectContaining({ kind: 'validation', errors: { body: [expect.stringContaining(`${MAX_BODY_VALUES}`)] } }));
  });

  it.each([
    ['tokenize', () => planTokenize(new Array(MAX_BODY_VALUES - 1).fill(null), { now: new Date(), engine })],
    ['detokenize', () => planDetokenize(new Array(MAX_BODY_VALUES - 1).fill('plain text'))],
  ])('takes a %s body of exactly MAX_BODY_VALUES values', (_kind, plan) => {
    expect(plan).not.toThrow();
  });
});
