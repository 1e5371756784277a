// The filters the vault adds to standard Liquid. Their errors name the filter and the rule broken, never a value:
// a filter's input (and often its arguments) come from token data.

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
export const MAX_JSON_PATH_LENGTH = 1_000;

type JsonPathStep = { key: string } | { index: number };

/**
 * A safe subset of JSONPath (RFC 9535), parsed by hand and never evaluated as code: the root `$`, then any number of
 * `.name` (a letter, `_` or non-ASCII character, then those or digits), `['name']` or `["name"]` (with the RFC's
 * backslash escapes) and `[n]` (an index; negative counts from the end: `[-1]` is the last item). Blanks are allowed
 * inside brackets. Everything else (`..`, `*`, filters, slices, unions) is a FilterArgumentError naming the position.
 */
export const parseJsonPath = (path: unknown): JsonPathStep[] => {
  if (typeof path !== 'string') throw new FilterArgumentError('json: the path must be a quoted string, such as \'$.number\'.');
  if (path.length > MAX_JSON_PATH_LENGTH) {
    throw new FilterArgumentError(`json: the path must be at most ${MAX_JSON_PATH_LENGTH.toLocaleString('en-US')} characters.`);
  }
  const fail = (at: number, problem: string): never => {
    throw new FilterArgumentError(`json: ${problem} at character ${at + 1} of the path. Use $, .name, ['name'] or [n].`);
  };
  if (!path.startsWith('$')) fail(0, 'the path must start with $');
  const steps: JsonPathStep[] = [];
  let at = 1;
  const blanks = () => {
    while (at < path.length && ' \t\n\r'.includes(path[at])) at++;
  };
  while (at < path.length) {
    if (path[at] === '.') {
      MEMBER_NAME.lastIndex = at + 1;
      const name = MEMBER_NAME.exec(path);
      if (!name) fail(at + 1, path[at + 1] === '.' ? 'descendant segments (..) are not supported' : 'expected a name');
      steps.push({ key: name![0] });
      at += 1 + name![0].length;
    } else if (path[at] === '[') {
      at++;
      blanks();
      const quote = path[at];
      if (quote === "'" || quote === '"') {
        const read = readQuoted(path, at, fail);
        steps.push({ key: read.text });
        at = read.end;
      } else {
        INDEX.lastIndex = at;
        const index = INDEX.exec(path);
        if (!index) fail(at, 'expected a quoted name or an integer index');
        steps.push({ index: Number(index![0]) });
        at += index![0].length;
      }
      blanks();
      if (path[at] !== ']') fail(at, 'expected ]');
      at++;
    } else {
      fail(at, 'expected . or [');
    }
  }
  return steps;
};

const MEMBER_NAME = /[A-Za-z_\u0080-\uFFFF][A-Za-z0-9_\u0080-\uFFFF]*/y;
/** An index without leading zeros and at most 15 digits (exact as a double), negative or not. */
const INDEX = /(?:0|-?[1-9]\d{0,14})(?!\d)/y;
const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\', "'": "'", '"': '"' };

/** Reads a quoted name from its opening quote; returns its text and the index after the closing quote. */
const readQuoted = (path: string, open: number, fail: (at: number, problem: string) => never): { text: string; end: number } => {
  const quote = path[open];
  let text = '';
  let at = open + 1;
  while (at < path.length && path[at] !== quote) {
    if (path[at] !== '\\') {
      text += path[at++];
      continue;
    }
    const escape = path[at + 1];
    if (escape === 'u' && /^[0-9A-Fa-f]{4}$/.test(path.slice(at + 2, at + 6))) {
      text += String.fromCharCode(parseInt(path.slice(at + 2, at + 6), 16));
      at += 6;
    } else if (escape !== undefined && Object.hasOwn(ESCAPES, escape)) {
      text += ESCAPES[escape];
      at += 2;
    } else {
      fail(at, 'invalid escape in a quoted name');
    }
  }
  if (at >= path.length) fail(open, 'a quoted name is not closed');
  return { text, end: at + 1 };
};

/** Walks the steps through own properties and array items only; a step that finds nothing gives null. */
export const selectJsonPath = (value: unknown, steps: readonly JsonPathStep[]): unknown => {
  let current = value;
  for (const step of steps) {
    if ('index' in step) {
      if (!Array.isArray(current)) return null;
      const index = step.index < 0 ? current.length + step.index : step.index;
      if (index < 0 || index >= current.length) return null;
      current = current[index];
    } else {
      if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, step.key)) {
        return null;
      }
      current = (current as Record<string, unknown>)[step.key];
    }
  }
  return current === undefined ? null : current;
};
