import fc from 'fast-check';
import { base64DecodedLength, decodeBase64 } from './base64';

describe('decodeBase64', () => {
  it('decodes whatever a standard encoder produces, padded or not', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const padded = Buffer.from(bytes).toString('base64');
        expect(decodeBase64(padded)).toEqual(new Uint8Array(bytes));
        expect(decodeBase64(padded.replace(/=+$/, ''))).toEqual(new Uint8Array(bytes));
        expect(base64DecodedLength(padded)).toBe(bytes.length);
      }),
    );
  });

  it.each([
    ['a character outside the alphabet', 'ab$d'],
    ['whitespace', 'ab cd'],
    ['the URL-safe alphabet', 'ab-_'],
    ['padding in the middle', 'ab=cdefg'],
    ['three padding characters', 'a==='],
    ['padding on a length not a multiple of four', 'abc=='],
    ['a dangling character', 'abcde'],
  ])('rejects %s', (_title, text) => {
    expect(decodeBase64(text)).toBeNull();
    expect(base64DecodedLength(text)).toBeNull();
  });

  it('decodes the empty string to no bytes', () => {
    expect(decodeBase64('')).toEqual(new Uint8Array(0));
  });
});
