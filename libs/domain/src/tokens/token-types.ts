// The four token types: the data each accepts and the defaults a token of that type gets.

export const TOKEN_TYPES = ['token', 'card_number', 'social_security_number', 'employer_id_number'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The default data search indexes: the value as given, without delimiters, and its last four digits. */
export const DEFAULT_DATA_SEARCH_INDEXES: readonly string[] = Object.freeze([
  '{{ data }}',
  "{{ data | remove: '-' }}",
  '{{ data | last4 }}',
]);

/** Deeper `token` data is refused: rendering and JSON.stringify recurse, and no real payload nests this far. */
export const MAX_TOKEN_DATA_DEPTH = 64;

/**
 * The most JSON text a token's data may take (characters of `JSON.stringify(data)`). A vault token is a secret, not a
 * document store: the bound keeps every expression evaluated on it (mask, fingerprint, search indexes), its encryption
 * and its events small, so no request holds the event loop for long.
 */
export const MAX_TOKEN_DATA_LENGTH = 65_536;
const TOO_LARGE = `data must be at most ${MAX_TOKEN_DATA_LENGTH.toLocaleString('en-US')} characters of JSON.`;

export interface TokenTypeRules {
  readonly type: TokenType;
  readonly defaultContainer: string;
  readonly defaultFingerprintExpression: string;
  /** Null: tokens of this type have no mask unless the request gives one. */
  readonly defaultMask: string | null;
  readonly defaultSearchIndexes: readonly string[];
  /** False for card numbers: a request that gives indexes is a 400. */
  readonly searchIndexesAllowed: boolean;
  /** Whether `data:` search terms may match tokens of this type (social security and employer id numbers, and `token`). */
  readonly dataSearchable: boolean;
  /** Null when `data` is acceptable; else a message that says what was expected and never echoes the data. */
  checkData(data: unknown): string | null;
}

const NINE_DIGITS = /^\d{9}$/;

const stringMatching =
  (valid: (text: string) => boolean, expected: string) =>
  (data: unknown): string | null => {
    if (typeof data !== 'string') return `data must be a string for this token type (${expected}).`;
    return valid(data) ? null : `data must be ${expected}.`;
  };

/** The Luhn (mod 10) check digit test used by every card scheme. */
export const isLuhnValid = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
};

const isCardNumber = (text: string): boolean => /^\d{13,19}$/.test(text) && isLuhnValid(text);
const isSsn = (text: string): boolean => NINE_DIGITS.test(text) || /^\d{3}-\d{2}-\d{4}$/.test(text);
const isEin = (text: string): boolean => NINE_DIGITS.test(text) || /^\d{2}-\d{7}$/.test(text);

/** Any JSON value but null: null is how a merge patch removes a field, so it cannot also be a token's data. */
const checkJsonData = (data: unknown): string | null => {
  if (data === undefined) return 'data is required.';
  if (data === null) return 'data must not be null.';
  // Iterative walk: a recursive one would let a deeply nested body overflow the stack. It adds up a lower bound of the
  // JSON length as it goes, so a huge value is refused before it is walked (or stringified) whole.
  const pending: Array<{ value: unknown; depth: number }> = [{ value: data, depth: 1 }];
  let length = 0;
  while (pending.length > 0) {
    const { value, depth } = pending.pop()!;
    if (depth > MAX_TOKEN_DATA_DEPTH) return `data must not nest deeper than ${MAX_TOKEN_DATA_DEPTH} levels.`;
    if (value === null || typeof value === 'boolean') length += 4;
    else if (typeof value === 'string') length += value.length + 2;
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return 'data must be a JSON value (numbers must be finite).';
      length += 1;
    } else if (Array.isArray(value)) {
      length += 1 + value.length;
      if (length > MAX_TOKEN_DATA_LENGTH) return TOO_LARGE;
      for (const item of value) pending.push({ value: item, depth: depth + 1 });
    } else if (typeof value === 'object' && isPlainRecord(value)) {
      const keys = Object.keys(value);
      length += 1 + keys.length;
      if (length > MAX_TOKEN_DATA_LENGTH) return TOO_LARGE;
      for (const key of keys) {
        length += key.length + 3;
        pending.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
      }
    } else return 'data must be a JSON value.';
    if (length > MAX_TOKEN_DATA_LENGTH) return TOO_LARGE;
  }
  // The bound above never overestimates; the exact length is now cheap to take.
  return JSON.stringify(data).length > MAX_TOKEN_DATA_LENGTH ? TOO_LARGE : null;
};

const REVEAL_LAST_4 = '{{ data | reveal_last: 4 }}';
const WITHOUT_DASHES = "{{ data | remove: '-' }}";

const RULES: Record<TokenType, TokenTypeRules> = {
  token: {
    type: 'token',
    defaultContainer: '/general/high/',
    defaultFingerprintExpression: '{{ data | stringify }}',
    defaultMask: null,
    defaultSearchIndexes: [],
    searchIndexesAllowed: true,
    dataSearchable: true,
    checkData: checkJsonData,
  },
  card_number: {
    type: 'card_number',
    defaultContainer: '/pci/high/',
    defaultFingerprintExpression: '{{ data }}',
    defaultMask: REVEAL_LAST_4,
    defaultSearchIndexes: [],
    searchIndexesAllowed: false,
    dataSearchable: false,
    checkData: stringMatching(isCardNumber, 'a card number of 13 to 19 digits that passes the Luhn check'),
  },
  social_security_number: {
    type: 'social_security_number',
    defaultContainer: '/pii/high/',
    defaultFingerprintExpression: WITHOUT_DASHES,
    defaultMask: REVEAL_LAST_4,
    defaultSearchIndexes: DEFAULT_DATA_SEARCH_INDEXES,
    searchIndexesAllowed: true,
    dataSearchable: true,
    checkData: stringMatching(isSsn, 'a social security number of 9 digits, as 123-45-6789 or 123456789'),
  },
  employer_id_number: {
    type: 'employer_id_number',
    defaultContainer: '/pii/high/',
    defaultFingerprintExpression: WITHOUT_DASHES,
    defaultMask: REVEAL_LAST_4,
    defaultSearchIndexes: DEFAULT_DATA_SEARCH_INDEXES,
    searchIndexesAllowed: true,
    dataSearchable: true,
    checkData: stringMatching(isEin, 'an employer identification number of 9 digits, as 12-3456789 or 123456789'),
  },
};

export const isTokenType = (value: unknown): value is TokenType =>
  typeof value === 'string' && (TOKEN_TYPES as readonly string[]).includes(value);

export const tokenTypeRules = (type: TokenType): TokenTypeRules => RULES[type];

/** The types `data:` search terms apply to; search adds `type IN (…)` with these to every data term. */
export const DATA_SEARCH_TOKEN_TYPES: readonly TokenType[] = TOKEN_TYPES.filter((type) => RULES[type].dataSearchable);

/**
 * A JSON object: a plain one, or one without a prototype. Plain in any realm: what arrives over a child process's IPC
 * channel was parsed by Node's own JSON.parse, whose Object.prototype is not the one of code run in a vm context (Jest).
 */
const isPlainRecord = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || prototype === Object.prototype || (Object.getPrototypeOf(prototype) === null && toString.call(value) === '[object Object]' && typeof prototype.hasOwnProperty === 'function' && prototype.constructor?.name === 'Object');
};

const toString = Object.prototype.toString;
