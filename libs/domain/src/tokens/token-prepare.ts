// Evaluates a validated token's expressions: everything the application layer then hashes or encrypts.
import { FieldErrorCollector } from '../shared/errors';
import { maskRevealsData } from '../access/mask-reveals-data';
import type { ExpressionEngine } from './expression-engine';
import type { EncryptedData } from './sealed-data';
import type { TokenContent } from './token.events';
import type { TokenRecord } from './token.state';
import { tokenTypeRules, type JsonValue, type TokenType } from './token-types';

/** A token as requested, validated, with its type's defaults applied; data still in plaintext. */
export interface TokenDraft {
  type: TokenType;
  data: JsonValue;
  containers: string[];
  metadata: Record<string, string>;
  search_indexes: string[];
  fingerprint_expression: string;
  mask: string | null;
  /** ISO 8601 (normalised to UTC), or null. */
  expires_at: string | null;
}

/** The evaluated, still sensitive inputs of TokenCrypto. Never log, store or put this in an error. */
export interface PreparedToken {
  /** What TokenCrypto.encrypt seals: the string itself for string types, its JSON for `token`. */
  plaintext: string;
  /** The evaluated fingerprint expression, for TokenCrypto.fingerprint. */
  fingerprint_input: string;
  /** The evaluated mask, or null without a mask. Derived from data: TokenCrypto seals it like the data. */
  masked: string | null;
  /** Each index's value through normalizeSearchValue, without duplicates, for TokenCrypto.searchHash. */
  search_values: string[];
}

/** What TokenCrypto produced from a PreparedToken. */
export interface SealedToken {
  encrypted: EncryptedData;
  /** The evaluated mask sealed with the data key, or null without a mask. */
  masked: EncryptedData | null;
  fingerprint: string;
  search_hashes: string[];
}

/**
 * Search values and `data:` query values go through this one function before hashing, so they compare equal
 * exactly when they match case-insensitively (Unicode-normalised, surrounding whitespace ignored).
 */
export const normalizeSearchValue = (value: string): string => value.normalize('NFC').trim().toLowerCase();

export const serializeTokenData = (type: TokenType, data: JsonValue): string =>
  type === 'token' ? JSON.stringify(data) : (data as string);

/** The inverse of serializeTokenData: what a `reveal` transform returns. */
export const parseTokenData = (type: TokenType, plaintext: string): JsonValue =>
  type === 'token' ? (JSON.parse(plaintext) as JsonValue) : plaintext;

/**
 * Checks one rendered search index. Exactly one value means: not empty or whitespace, not the text `null` or
 * `undefined`, and not a list. The engine renders a list as a JSON array (`{{ data | split: '-' }}` gives
 * `["123","45","6789"]`), so output that parses as a JSON array is several values. Text a template composes itself
 * (`{{ data.first }} {{ data.last }}`) is one value, spaces and commas included: names and addresses contain them.
 */
export const searchIndexProblem = (rendered: string): string | null => {
  const trimmed = rendered.trim();
  if (trimmed === '') return 'evaluates to an empty value; each search index must produce exactly one value.';
  const lower = trimmed.toLowerCase();
  if (lower === 'null' || lower === 'undefined') {
    return 'evaluates to null; each search index must produce exactly one value.';
  }
  if (trimmed.startsWith('[') && isJsonArray(trimmed)) {
    return 'evaluates to a list; each search index must produce exactly one value, not several.';
  }
  return null;
};

const isJsonArray = (text: string): boolean => {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
};

/**
 * Like prepareToken, but reports into `errors`, so validation can report every problem at once. `skip` names
 * expressions already reported as invalid, which are then not evaluated.
 */
export const collectPreparedToken = (
  draft: TokenDraft,
  engine: ExpressionEngine,
  errors: FieldErrorCollector,
  skip: ReadonlySet<'fingerprint_expression' | 'mask'> = new Set(),
): PreparedToken => {
  const render = (expression: string, path: string): string | null => {
    try {
      return engine.evaluate(expression, draft.data);
    } catch (error) {
      // The engine's contract keeps data out of its messages; the expression itself is not sensitive.
      errors.add(path, `${path} could not be evaluated: ${error instanceof Error ? error.message : 'unknown error'}`);
      return null;
    }
  };
  const plaintext = serializeTokenData(draft.type, draft.data);
  const values = new Set<string>();
  draft.search_indexes.forEach((expression, i) => {
    const path = `search_indexes[${i}]`;
    const rendered = render(expression, path);
    if (rendered === null) return;
    const problem = searchIndexProblem(rendered);
    if (problem) errors.add(path, `${path} ${problem}`);
    else values.add(normalizeSearchValue(rendered));
  });
  let masked = draft.mask === null || skip.has('mask') ? null : render(draft.mask, 'mask');
  if (masked !== null && maskRevealsData(masked, draft.data)) {
    errors.add('mask', 'mask evaluates to the whole data (with or without delimiters); a mask must hide part of it.');
    masked = null;
  }
  return {
    plaintext,
    fingerprint_input: skip.has('fingerprint_expression')
      ? ''
      : (render(draft.fingerprint_expression, 'fingerprint_expression') ?? ''),
    masked,
    search_values: [...values],
  };
};

/** Evaluates the draft's fingerprint, mask and search indexes; a failing one is a 400 on its field. */
export const prepareToken = (draft: TokenDraft, engine: ExpressionEngine): PreparedToken => {
  const errors = new FieldErrorCollector();
  const prepared = collectPreparedToken(draft, engine, errors);
  errors.throwIfAny();
  return prepared;
};

/** The content of a CreateToken (whole) or UpdateToken (without `type`) command. */
export const tokenContent = (draft: TokenDraft, sealed: SealedToken): TokenContent => ({
  type: draft.type,
  encrypted: sealed.encrypted,
  fingerprint: sealed.fingerprint,
  fingerprint_expression: draft.fingerprint_expression,
  mask: draft.mask,
  masked: sealed.masked,
  containers: draft.containers,
  metadata: draft.metadata,
  search_indexes: draft.search_indexes,
  search_hashes: sealed.search_hashes,
  expires_at: draft.expires_at,
});

/** The draft a stored token stands for, given its decrypted data: where a merge patch starts from. */
export const draftOf = (token: TokenRecord, data: JsonValue): TokenDraft => ({
  type: token.type,
  data,
  containers: [...token.containers],
  metadata: { ...token.metadata },
  search_indexes: [...token.search_indexes],
  fingerprint_expression: token.fingerprint_expression,
  mask: token.mask,
  expires_at: token.expires_at,
});

/** The type's defaults for the fields a request left out (or, in a patch, set to null). */
export const defaultsFor = (type: TokenType) => {
  const rules = tokenTypeRules(type);
  return {
    containers: [rules.defaultContainer],
    search_indexes: [...rules.defaultSearchIndexes],
    fingerprint_expression: rules.defaultFingerprintExpression,
    mask: rules.defaultMask,
  };
};
