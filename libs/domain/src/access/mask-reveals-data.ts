// Whether a token's mask would show all of its data: a mask is a view the caller's mask rule hands out, so one that
// holds every letter and digit of the data is a reveal under another name, refused when the token is prepared.
import type { JsonValue } from '../tokens/token-types';

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Unicode-normalised and case-folded (upper then lower: `ß` and `SS`, `ı` and `I` fold alike), one character a slot. */
const folded = (text: string): string[] => [...text.normalize('NFKC').toUpperCase().toLowerCase()];

/** How often each character of `texts` that `counts` accepts occurs. */
const characterCounts = (texts: readonly string[], counts: (char: string) => boolean): Map<string, number> => {
  const found = new Map<string, number>();
  for (const text of texts) for (const char of folded(text)) if (counts(char)) found.set(char, (found.get(char) ?? 0) + 1);
  return found;
};

/** What a token's data is made of: the string itself, or every primitive leaf of JSON data (and its keys, if asked). */
const dataParts = (data: JsonValue, withKeys: boolean): string[] => {
  const parts: string[] = [];
  const pending: JsonValue[] = [data];
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (value === null) continue;
    if (Array.isArray(value)) pending.push(...value);
    else if (typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (withKeys) parts.push(key);
        pending.push(item);
      }
    } else parts.push(String(value));
  }
  return parts;
};

/**
 * Whether an evaluated mask shows all of the data: every letter and digit of the data appears in the mask at least as
 * often, in any order and whatever is between them (`{{ data }}`, `{{ data | remove: '-' }}`, reversed, interleaved,
 * in another case, each value of JSON data in a row). For JSON, all the values shown is the whole data, and so are all
 * the keys and values together (data can sit in keys). Data with no letter or digit is judged by all its characters
 * but spaces.
 */
export const maskRevealsData = (masked: string, data: JsonValue): boolean =>
  showsAll(masked, dataParts(data, false)) || showsAll(masked, dataParts(data, true));

const showsAll = (masked: string, parts: readonly string[]): boolean => {
  const alphanumeric = parts.some((part) => folded(part).some((char) => LETTER_OR_DIGIT.test(char)));
  const counts = alphanumeric ? (char: string) => LETTER_OR_DIGIT.test(char) : (char: string) => char.trim() !== '';
  // Spent as the data's characters are met: the first one the mask does not hold answers.
  const available = characterCounts([masked], counts);
  let any = false;
  for (const part of parts) {
    for (const char of folded(part)) {
      if (!counts(char)) continue;
      any = true;
      const left = available.get(char) ?? 0;
      if (left === 0) return false;
      available.set(char, left - 1);
    }
  }
  return any;
};
