import { base58Encode } from './base58';

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (value: string) => new TextEncoder().encode(value);

describe('base58Encode (Bitcoin alphabet)', () => {
  it.each([
    [bytes(), ''],
    [bytes(0), '1'],
    [bytes(0, 0, 1), '112'],
    [bytes(57), 'z'],
    [bytes(58), '21'],
    [bytes(0xff), '5Q'],
    [text('Hello World!'), '2NEpo7TZRRrLZSi2U'],
    [text('The quick brown fox jumps over the lazy dog.'), 'USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z'],
  ])('%j → %s', (input, encoded) => {
    expect(base58Encode(input)).toBe(encoded);
  });

  it('never uses the look-alike characters 0, O, I and l', () => {
    const all = base58Encode(Uint8Array.from({ length: 256 }, (_, i) => i));
    expect(all).not.toMatch(/[0OIl]/);
  });
});
