// Base58 with the Bitcoin alphabet: compact, no look-alike characters (0/O, I/l), safe in URLs and search terms.

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Encodes bytes as base58; each leading zero byte becomes a leading `1`, as in Bitcoin addresses. */
export const base58Encode = (bytes: Uint8Array): string => {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Base-58 digits, least significant first; each input byte multiplies the number by 256 and adds itself.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] * 256;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let encoded = '1'.repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) encoded += ALPHABET[digits[i]];
  return encoded;
};
