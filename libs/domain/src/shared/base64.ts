// A strict standard-alphabet base64 decoder over Uint8Array, so the domain needs neither Buffer nor atob.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUES = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/**
 * Length in bytes of what `text` decodes to, or null when it is not base64. Cheap: lets a caller reject an
 * oversized payload before decoding it. Padding is optional; characters outside the alphabet, `=` anywhere but at
 * the end, and a dangling single character (length ≡ 1 mod 4) are not base64. Whitespace is not accepted.
 */
export const base64DecodedLength = (text: string): number | null => {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const body = text.length - padding;
  if (padding > 0 && text.length % 4 !== 0) return null;
  if (body % 4 === 1) return null;
  for (let i = 0; i < body; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || VALUES[code] < 0) return null;
  }
  return Math.floor((body * 6) / 8);
};

/** The bytes `text` encodes, or null when it is not base64 (see base64DecodedLength for the rules). */
export const decodeBase64 = (text: string): Uint8Array | null => {
  const length = base64DecodedLength(text);
  if (length === null) return null;
  const bytes = new Uint8Array(length);
  let buffer = 0;
  let bits = 0;
  let out = 0;
  for (let i = 0; out < length; i++) {
    buffer = ((buffer << 6) | VALUES[text.charCodeAt(i)]) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[out++] = (buffer >> bits) & 0xff;
    }
  }
  return bytes;
};
