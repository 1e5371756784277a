// What the leak property looks for in a response: every 5-character window of a token's data, compared without regard
// to case, in the response's text and headers and in whatever its strings decode to (URL encoding, base64, base64url),
// since an echoing reactor or destination may hand the data back encoded or upper-cased.
//
// Generated letters come from SECRET_LETTERS only: no vowel, nothing of `x` (the masks' letter), of the data's own
// object keys (`k`, `j`, `ssn`, `inner`, `n`) or of `true`, `false` and `null`, so a window of generated data never
// spells a word, a field name or a fixed text of the API, and a window counts only when it holds one of those letters
// or a digit (showsData). Before matching, what is random by construction and cannot carry data is taken out: UUIDs,
// ISO timestamps, base58 fingerprints, and the Content-Length and ETag headers (numbers and hashes of the body, which
// is checked itself). What is left of the 5-digit windows of card numbers and SSNs can then only come from token data.
import { withoutIdsAndTimes } from '../../support/random-parts';
import { decodingsOf } from './decodings';

export const WINDOW = 5;
export const SECRET_LETTERS = 'bcdghmpqvwz';
export const SECRET_ALPHABET = `${SECRET_LETTERS}23456789`;

/** Case does not hide data: every comparison is between upper-cased texts. */
export const fold = (text: string): string => text.toUpperCase();

export const alnum = (text: string): string => text.replace(/[^A-Za-z0-9]/g, '');

/** The folded windows of a text (none when it is shorter than a window). */
export const windowsOf = (text: string): string[] => {
  const folded = fold(text);
  const out: string[] = [];
  for (let i = 0; i + WINDOW <= folded.length; i++) out.push(folded.slice(i, i + WINDOW));
  return out;
};

/**
 * A window of a mask shows something when it holds two letters or digits of the data, not only X's and delimiters. Only
 * windows within a value count: one across an object mask's JSON (`d","n`) is mostly punctuation and key names, and
 * its one character of data would be found in any text that happens to hold `","n`.
 */
const SHOWS_DATA = new RegExp(`[${fold(SECRET_LETTERS)}0-9]`);
const WITHIN_A_VALUE = /^[A-Z0-9 ._-]+$/;
export const maskWindowsOf = (masked: string): string[] => windowsOf(masked).filter((w) => WITHIN_A_VALUE.test(w) && dataCharacters(w) >= 2);

/**
 * A mask window with one character of data and four X's (`XXXX5`) is in every mask that shows that character there:
 * another token's mask the caller is entitled to holds it as often as this one. Two characters of data say which.
 */
const dataCharacters = (w: string): number => [...w].filter((c) => SHOWS_DATA.test(c)).length;

/** Whether a folded window holds a letter or digit that generated data may have (key names and words have none). */
export const showsData = (w: string): boolean => SHOWS_DATA.test(w);

const FINGERPRINT = /"fingerprint":"[1-9A-HJ-NP-Za-km-z]{30,60}"/g;
const IGNORED_HEADERS = new Set(['content-length', 'etag']);

/** Text without what is random by construction: UUIDs, timestamps, fingerprints. */
export const scrub = (text: string): string => withoutIdsAndTimes(text).replace(FINGERPRINT, '"fingerprint":"<fingerprint>"');

/** A UUID with its dashes taken out (as a destination that drops delimiters writes an id): 32 hex digits, some letters. */
const BARE_UUID = /(?<![0-9A-Fa-f])(?=[0-9]*[A-Fa-f])[0-9A-Fa-f]{32}(?![0-9A-Fa-f])/g;

/** scrub, and ids without their dashes too: what a destination's answer is read with. */
const scrubThorough = (text: string): string => scrub(text).replace(BARE_UUID, '<id>');

export interface Response {
  text: string;
  body: unknown;
  headers: Record<string, string | string[]>;
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}/g;

/** What a string may be an encoding of: its URL-decoded form, and each base64 run decoded at every alignment. */
const decodings = (text: string): string[] => {
  const out: string[] = [];
  if (text.includes('%')) {
    try {
      out.push(decodeURIComponent(text));
    } catch {
      // Not URL-encoded after all.
    }
  }
  for (const run of text.match(BASE64_RUN) ?? []) {
    const standard = run.replace(/-/g, '+').replace(/_/g, '/');
    for (let offset = 0; offset < 4 && offset + 8 <= standard.length; offset++) {
      const bytes = Buffer.from(standard.slice(offset), 'base64');
      out.push(bytes.toString('latin1'), bytes.toString('utf8'));
    }
  }
  return out;
};

/** Every string of a JSON value, keys included, less fingerprints. */
const stringsOf = (value: unknown, out: string[] = []): string[] => {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((item) => stringsOf(item, out));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      if (key !== 'fingerprint') stringsOf(item, out);
    }
  }
  return out;
};

const parsedBody = (response: Response): unknown => {
  if (response.body !== undefined && !(response.body && typeof response.body === 'object' && Object.keys(response.body).length === 0)) return response.body;
  try {
    return JSON.parse(response.text);
  } catch {
    return undefined;
  }
};

/**
 * The texts a response is searched in, folded: headers and body as sent, and every decoding of its strings; `thorough`:
 * every decoding of each header value and of the body's text, layer by layer (decodings.ts).
 */
export const searchedTexts = (response: Response, thorough = false): string[] => {
  const entries = Object.entries(response.headers).filter(([name]) => !IGNORED_HEADERS.has(name.toLowerCase()) && !(thorough && name.toLowerCase() === 'date'));
  const values = entries.map(([, value]) => (Array.isArray(value) ? value.join(', ') : String(value)));
  const headers = entries.map(([name], i) => `${name}: ${values[i]}`).join('\n');
  const texts = [scrub(headers), scrub(response.text)];
  if (thorough) {
    for (const text of [...values, response.text]) texts.push(...decodingsOf(text, scrubThorough));
  } else {
    for (const text of [headers, ...stringsOf(parsedBody(response))]) texts.push(...decodings(scrub(text)));
  }
  return texts.map(fold);
};

/** The first window of `index` found in `texts`, with where it was found. */
export const findWindow = <T>(
  texts: readonly string[],
  index: ReadonlyMap<string, T>,
  length = WINDOW,
): { window: string; what: T; context: string } | null => {
  if (index.size === 0) return null;
  for (const text of texts) {
    for (let i = 0; i + length <= text.length; i++) {
      const window = text.slice(i, i + length);
      const what = index.get(window);
      if (what !== undefined) return { window, what, context: text.slice(Math.max(0, i - 60), i + length + 60) };
    }
  }
  return null;
};

/**
 * Read decoded layer by layer, an answer holds hex: runs of digits in which five in a row (a window of a card number or
 * an SSN) come by chance. There, a run of digits counts as data from DIGIT_WINDOW digits on, what any encoding of a
 * whole value gives back whole.
 */
export const DIGIT_WINDOW = 8;
export const ALL_DIGITS = /^[0-9]+$/;

/** The DIGIT_WINDOW-long windows of the runs of digits in a text. */
export const digitWindowsOf = (text: string): string[] =>
  (text.match(/[0-9]+/g) ?? []).flatMap((run) => Array.from({ length: Math.max(0, run.length - DIGIT_WINDOW + 1) }, (_, i) => run.slice(i, i + DIGIT_WINDOW)));
