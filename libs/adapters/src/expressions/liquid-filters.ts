// The filters the vault adds to standard Liquid. Their errors name the filter and the rule broken, never a value:
// a filter's input (and often its arguments) come from token data.
import { JsonPathError, MAX_JSON_PATH_LENGTH, parseJsonPath as parseDomainJsonPath, selectJsonPath, type JsonPathStep } from '@vault/domain';

/** Thrown by our filters for bad arguments; its message is safe to show, unlike arbitrary render errors. */
export class FilterArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterArgumentError';
  }
}

/** Bounds the output of the padding filters, so an expression cannot allocate without limit. */
export const MAX_PAD_WIDTH = 1_000;

const ALPHANUMERIC = /[\p{L}\p{N}]/u;

/** How a filter sees its input: strings as they are, nothing as '', other values as their JSON. */
export const asText = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
};

const count = (filter: string, name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > max) {
    throw new FilterArgumentError(`${filter}: ${name} must be an integer from 0 to ${max}.`);
  }
  return number;
};

const singleCharacter = (filter: string, value: unknown, fallback?: string): string => {
  const char = value === undefined || value === null ? fallback : value;
  if (typeof char !== 'string' || [...char].length !== 1) {
    throw new FilterArgumentError(`${filter}: the character argument must be exactly one character.`);
  }
  return char;
};

/**
 * Replaces every letter and digit by `char` except the first `first` and the last `last` of them; other characters
 * (separators, spaces) stay, so the shape remains readable: `123-45-6789` → `XXX-XX-6789`.
 */
const maskAlphanumerics = (text: string, first: number, last: number, char: string): string => {
  const characters = [...text];
  const total = characters.filter((c) => ALPHANUMERIC.test(c)).length;
  let seen = 0;
  return characters
    .map((c) => {
      if (!ALPHANUMERIC.test(c)) return c;
      seen++;
      return seen <= first || seen > total - last ? c : char;
    })
    .join('');
};

export const CUSTOM_FILTERS: Record<string, (value: unknown, ...args: unknown[]) => unknown> = {
  /** The last four digits, separators dropped: `123-45-6789` → `6789`. */
  last4: (value) => asText(value).replace(/\D/g, '').slice(-4),
  reveal_last: (value, n, char) =>
    maskAlphanumerics(asText(value), 0, count('reveal_last', 'n', n), singleCharacter('reveal_last', char, 'X')),
  reveal: (value, first, last, char) =>
    maskAlphanumerics(
      asText(value),
      count('reveal', 'first', first),
      count('reveal', 'last', last),
      singleCharacter('reveal', char, 'X'),
    ),
  pad_left: (value, width, char) =>
    asText(value).padStart(count('pad_left', 'n', width, MAX_PAD_WIDTH), singleCharacter('pad_left', char)),
  pad_right: (value, width, char) =>
    asText(value).padEnd(count('pad_right', 'n', width, MAX_PAD_WIDTH), singleCharacter('pad_right', char)),
  /**
   * JSON with object keys sorted at every level: the default fingerprint of `token` tokens, so `{"a":1,"b":2}` and
   * `{"b":2,"a":1}` (the same content) get the same fingerprint.
   */
  stringify: (value) => JSON.stringify(value, sortedKeys) ?? '',
  /** The value a JSONPath selects inside JSON data (`json: '$.card.number'`); null, which renders as nothing, if none. */
  json: (value, path) => selectJsonPath(value, parseJsonPath(path)),
};

function sortedKeys(this: unknown, _key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}

/** Bounds the path's parse and walk: a path is a handful of steps, not a document. */
/** The `json` filter's path, parsed by the domain's JSONPath subset; its problems as this filter's argument errors. */
export const parseJsonPath = (path: unknown): JsonPathStep[] => {
  if (typeof path !== 'string') throw new FilterArgumentError('json: the path must be a quoted string, such as \'$.number\'.');
  try {
    return parseDomainJsonPath(path);
  } catch (error) {
    if (error instanceof JsonPathError) throw new FilterArgumentError(`json: ${error.message}`);
    throw error;
  }
};

export { MAX_JSON_PATH_LENGTH, selectJsonPath };
