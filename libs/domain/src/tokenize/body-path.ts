// Where a value sits in a tokenize or detokenize body, written as the `errors` key and in messages that name it.
//
// Syntax: `[i]` for an array item; `.key` for an object key that is identifier-like (a letter or `_`, then letters,
// digits, `_` or `-`, at most 100 characters), written without the dot when it is the first step (`card.number`,
// `[2].data`); any other key in brackets and double quotes (`["first name"]`, `["0"]`, `card["a.b"]`). Keys are caller
// text: inside the quotes `"` and `\` are backslash-escaped and every control, format, separator or unassigned
// character as `\uXXXX`, so a key can neither close its quotes nor break or reorder the message around it. A key
// longer than 100 characters shows its first 100 and `…` after the closing quote (`["aaa…aaa"…]`): two such keys
// that share those 100 characters share a path (they still get their own place in every result).
import { validationError } from '../shared/errors';

/** Containers nested deeper than this are refused: no real payload nests this far, and the walks recurse. */
export const MAX_BODY_DEPTH = 64;

/**
 * The most values (containers, nulls, leaves) a tokenize or detokenize body may hold: what keeps the walks of one
 * request short (a 1 MiB body of nulls is about 170,000 values, and walking it held the event loop for up to 120 ms).
 */
export const MAX_BODY_VALUES = 10_000;

/** Counts one more value of a body, refusing the body (400 on `body`) past MAX_BODY_VALUES. */
export const countBodyValue = (counter: { values: number }): void => {
  counter.values += 1;
  if (counter.values > MAX_BODY_VALUES) {
    throw validationError({ [BODY_PATH]: [`The body must hold at most ${MAX_BODY_VALUES} values (containers, nulls and leaves).`] });
  }
};

/** The most characters of a key a path shows. */
export const MAX_PATH_KEY_LENGTH = 100;

/** The errors key of a problem with the body as a whole (too many tokens, not an object or array). */
export const BODY_PATH = 'body';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Characters that could break a message's layout or direction: controls, format (bidi), separators, unassigned. */
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

export const bodyIndexPath = (parent: string, index: number): string => `${parent}[${index}]`;

export const bodyKeyPath = (parent: string, key: string): string => {
  if (key.length <= MAX_PATH_KEY_LENGTH && IDENTIFIER.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${quotedKey(key)}]`;
};

/** The errors key of `field` (a validator's own field path: `data`, `containers[0]`) inside the value at `path`. */
export const bodyFieldPath = (path: string, field: string): string => {
  if (!path) return field;
  return field.startsWith('[') ? `${path}${field}` : `${path}.${field}`;
};

const quotedKey = (key: string): string => {
  const characters: string[] = [];
  let truncated = false;
  for (const character of key) {
    if (characters.length === MAX_PATH_KEY_LENGTH) {
      truncated = true;
      break;
    }
    characters.push(escaped(character));
  }
  return `"${characters.join('')}"${truncated ? '…' : ''}`;
};

const escaped = (character: string): string => {
  if (character === '"' || character === '\\') return `\\${character}`;
  if (!UNPRINTABLE.test(character)) return character;
  // A lone surrogate is one code unit; an unassigned astral character is two, each written out.
  return [...Array(character.length).keys()]
    .map((i) => `\\u${character.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`)
    .join('');
};
