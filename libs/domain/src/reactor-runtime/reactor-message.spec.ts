import { MAX_REACTOR_MESSAGE_LENGTH, reactorMessage } from './reactor-message';

describe('reactorMessage', () => {
  it.each([
    ['a short message', 'card declined', 'card declined'],
    ['a message of exactly the limit', 'a'.repeat(500), 'a'.repeat(500)],
    ['a message one over the limit', 'a'.repeat(501), `${'a'.repeat(499)}…`],
    ['a long message', 'b'.repeat(10_000), `${'b'.repeat(499)}…`],
  ])('keeps %s within 500 characters', (_title, message, expected) => {
    expect(reactorMessage(message)).toBe(expected);
    expect(reactorMessage(message).length).toBeLessThanOrEqual(MAX_REACTOR_MESSAGE_LENGTH);
  });

  it('never cuts an emoji in half at the limit', () => {
    const message = `${'a'.repeat(498)}😀${'z'.repeat(10)}`;
    const clipped = reactorMessage(message);
    expect(clipped).toBe(`${'a'.repeat(498)}…`);
    expect(clipped).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
