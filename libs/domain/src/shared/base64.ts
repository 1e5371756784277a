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

const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const URL_VALUES = new Int16Array(128).fill(-1);
for (let i = 0; i < URL_ALPHABET.length; i++) URL_VALUES[URL_ALPHABET.charCodeAt(i)] = i;

/** `bytes` in base64: the standard alphabet, or the URL-safe one (`-`, `_`); padded with `=` when `pad`. */
export const encodeBase64 = (bytes: Uint8Array, options: { url?: boolean; pad?: boolean } = {}): string => {
  const alphabet = options.url ? URL_ALPHABET : ALPHABET;
  let text = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    text += alphabet[n >> 18] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63] + alphabet[n & 63];
  }
  const left = bytes.length - i;
  if (left === 1) {
    const n = bytes[i] << 16;
    text += alphabet[n >> 18] + alphabet[(n >> 12) & 63] + (options.pad === false ? '' : '==');
  } else if (left === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    text += alphabet[n >> 18] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63] + (options.pad === false ? '' : '=');
  }
  return text;
};

/**
 * The bytes a run of base64 text encodes in either alphabet (never both mixed), padding optional, or null when it is
 * not base64: a more forgiving reader than decodeBase64, for text written by code rather than by a client.
 */
export const decodeAnyBase64 = (text: string): Uint8Array | null => {
  const body = text.replace(/={1,2}$/, '');
  if (body.length % 4 === 1) return null;
  const url = /[-_]/.test(body);
  if (url && /[+/]/.test(body)) return null;
  const values = url ? URL_VALUES : VALUES;
  const bytes = new Uint8Array(Math.floor((body.length * 6) / 8));
  let buffer = 0;
  let bits = 0;
  let out = 0;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    const value = code < 128 ? values[code] : -1;
    if (value < 0) return null;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[out++] = (buffer >> bits) & 0xff;
    }
  }
  return bytes;
};
