// Validation of a token create body and a merge-patch body: every violation at once, by field path.
import { FieldErrorCollector, validationError } from '../shared/errors';
import { isJsonObject, jsonTypeOf, rejectUnknownProperties, type JsonObject } from '../shared/json-shape';
import type { ExpressionEngine } from './expression-engine';
import {
  mergeMetadata,
  readContainers,
  readExpiresAt,
  readExpression,
  readSearchIndexes,
  readUuid,
} from './token-fields.validate';
import { collectPreparedToken, defaultsFor, type PreparedToken, type TokenDraft } from './token-prepare';
import { isTokenType, TOKEN_TYPES, tokenTypeRules, type JsonValue, type TokenType } from './token-types';

export const CREATE_TOKEN_PROPERTIES = [
  'id', 'type', 'data', 'containers', 'metadata', 'search_indexes', 'fingerprint_expression', 'mask',
  'deduplicate_token', 'expires_at',
] as const;

export const PATCH_TOKEN_PROPERTIES = [
  'data', 'containers', 'metadata', 'search_indexes', 'fingerprint_expression', 'mask', 'expires_at',
] as const;

const PATCH_HINTS: Record<string, string> = {
  id: 'A token keeps its id.',
  type: 'A token keeps its type; create a new token instead.',
  deduplicate_token: 'deduplicate_token applies only when creating a token.',
};

export interface ValidationOptions {
  /** The command's clock: expires_at must be later. */
  now: Date;
  engine: ExpressionEngine;
}

export interface ValidTokenCreate {
  /** The requested id (lower-cased), or null when the service should generate one. */
  id: string | null;
  deduplicate_token: boolean;
  draft: TokenDraft;
  prepared: PreparedToken;
}

export interface ValidTokenPatch {
  draft: TokenDraft;
  /** Null when the patch changes neither data nor an expression: the stored derived values stand (patchRederives). */
  prepared: PreparedToken | null;
}

/**
 * Checks a POST /tokens body, applies the type's defaults (null counts as absent for every optional field) and
 * evaluates the expressions. Throws one DomainError 'validation' listing every violation.
 */
export const validateCreateToken = (body: unknown, { now, engine }: ValidationOptions): ValidTokenCreate => {
  const input = requireObject(body);
  const errors = new FieldErrorCollector();
  rejectUnknownProperties(input, CREATE_TOKEN_PROPERTIES, '', errors);
  const id = isPresent(input.id) ? readUuid(input.id, 'id', errors) : null;
  const type = readType(input.type, errors);
  const defaults = type ? defaultsFor(type) : undefined;
  const given = (property: string) => isPresent(input[property]);
  const fields = {
    data: type ? readData(type, input.data, errors) : undefined,
    containers: given('containers') ? readContainers(input.containers, errors) : defaults?.containers,
    metadata: given('metadata') ? mergeMetadata({}, input.metadata, errors) : {},
    search_indexes: orDefault(readIndexesFor(type, input.search_indexes, engine, errors), defaults?.search_indexes),
    fingerprint_expression: given('fingerprint_expression')
      ? readExpression(input.fingerprint_expression, 'fingerprint_expression', engine, errors)
      : defaults?.fingerprint_expression,
    mask: given('mask') ? readExpression(input.mask, 'mask', engine, errors) : defaults?.mask,
    expires_at: given('expires_at') ? readExpiresAt(input.expires_at, now, errors) : null,
  };
  const deduplicate = input.deduplicate_token ?? false;
  if (typeof deduplicate !== 'boolean') {
    errors.add('deduplicate_token', `deduplicate_token must be a boolean, not ${jsonTypeOf(deduplicate)}.`);
  }
  const { draft, prepared } = evaluate(type, fields, engine, errors);
  errors.throwIfAny();
  return { id: id ?? null, deduplicate_token: deduplicate === true, draft: draft!, prepared: prepared! };
};

/**
 * Applies a PATCH /tokens/{id} body (RFC 7396 merge patch) to the token's current draft and re-evaluates it.
 * null resets a field to the type's default (containers, search_indexes, fingerprint_expression, mask), empties
 * metadata, or removes the expiry; inside metadata, null removes that key. `data` cannot be removed.
 */
export const validateTokenPatch = (
  body: unknown,
  current: TokenDraft,
  { now, engine, evaluate: reevaluate = true }: ValidationOptions & { evaluate?: boolean },
): ValidTokenPatch => {
  const patch = requireObject(body);
  const errors = new FieldErrorCollector();
  rejectUnknownProperties(patch, PATCH_TOKEN_PROPERTIES, '', errors, PATCH_HINTS);
  const defaults = defaultsFor(current.type);
  /** RFC 7396 per field: absent keeps the current value, null resets it, anything else is read as the new value. */
  const apply = <T>(property: string, kept: T, onNull: () => T | undefined, read: (value: unknown) => T | undefined) =>
    patch[property] === undefined ? kept : patch[property] === null ? onNull() : read(patch[property]);
  const fields: DraftFields = {
    data: apply('data', current.data, () => removedData(errors), (value) => readData(current.type, value, errors)),
    containers: apply('containers', current.containers, () => defaults.containers, (value) => readContainers(value, errors)),
    metadata: apply('metadata', current.metadata, () => ({}), (value) => mergeMetadata(current.metadata, value, errors)),
    search_indexes: apply(
      'search_indexes',
      current.search_indexes,
      () => defaults.search_indexes,
      (value) => readIndexesFor(current.type, value, engine, errors) ?? undefined,
    ),
    fingerprint_expression: apply(
      'fingerprint_expression',
      current.fingerprint_expression,
      () => defaults.fingerprint_expression,
      (value) => readExpression(value, 'fingerprint_expression', engine, errors),
    ),
    mask: apply<string | null>('mask', current.mask, () => defaults.mask, (value) => readExpression(value, 'mask', engine, errors)),
    expires_at: apply<string | null>('expires_at', current.expires_at, () => null, (value) => readExpiresAt(value, now, errors)),
  };
  if (!reevaluate) {
    errors.throwIfAny();
    return { draft: draftFrom(current.type, fields), prepared: null };
  }
  const { draft, prepared } = evaluate(current.type, fields, engine, errors);
  errors.throwIfAny();
  return { draft: draft!, prepared: prepared! };
};

type DraftFields = { [K in keyof Omit<TokenDraft, 'type'>]: TokenDraft[K] | undefined };

/** Evaluates the expressions once every field they depend on is valid, so their errors add to the others. */
const evaluate = (
  type: TokenType | undefined,
  fields: DraftFields,
  engine: ExpressionEngine,
  errors: FieldErrorCollector,
): { draft?: TokenDraft; prepared?: PreparedToken } => {
  const { data, fingerprint_expression, mask } = fields;
  if (type === undefined || data === undefined) return {};
  // An invalid field is already reported; evaluating the valid rest still finds their problems in the same response.
  const draft = draftFrom(type, fields);
  const skip = new Set<'fingerprint_expression' | 'mask'>();
  if (fingerprint_expression === undefined) skip.add('fingerprint_expression');
  if (mask === undefined) skip.add('mask');
  return { draft, prepared: collectPreparedToken(draft, engine, errors, skip) };
};

/** The draft the fields make, invalid ones (already reported) replaced by empty values. */
const draftFrom = (type: TokenType, fields: DraftFields): TokenDraft => ({
  type,
  data: fields.data as JsonValue,
  containers: fields.containers ?? [],
  metadata: fields.metadata ?? {},
  search_indexes: fields.search_indexes ?? [],
  fingerprint_expression: fields.fingerprint_expression ?? '',
  mask: fields.mask === undefined ? null : fields.mask,
  expires_at: fields.expires_at ?? null,
});

const requireObject = (body: unknown): JsonObject => {
  if (isJsonObject(body)) return body;
  throw validationError({ body: [`The request body must be a JSON object, not ${jsonTypeOf(body)}.`] });
};

const isPresent = (value: unknown): boolean => value !== undefined && value !== null;

const orDefault = <T>(read: T | null | undefined, fallback: T | undefined): T | undefined =>
  read === null ? fallback : read;

const readType = (value: unknown, errors: FieldErrorCollector): TokenType | undefined => {
  if (isTokenType(value)) return value;
  if (value === undefined || value === null) errors.add('type', 'type is required.');
  else errors.add('type', `type must be one of ${TOKEN_TYPES.join(', ')}.`);
  return undefined;
};

const removedData = (errors: FieldErrorCollector): undefined => {
  errors.add('data', 'data cannot be removed; send the new data instead.');
  return undefined;
};

const readData = (type: TokenType, value: unknown, errors: FieldErrorCollector): JsonValue | undefined => {
  const problem = tokenTypeRules(type).checkData(value);
  if (problem === null) return value as JsonValue;
  errors.add('data', problem);
  return undefined;
};

/** null when absent or null (the type's defaults apply); undefined when invalid (an error is reported). */
const readIndexesFor = (
  type: TokenType | undefined,
  value: unknown,
  engine: ExpressionEngine,
  errors: FieldErrorCollector,
): string[] | null | undefined => {
  if (!isPresent(value)) return null;
  const indexes = readSearchIndexes(value, engine, errors);
  if (type && !tokenTypeRules(type).searchIndexesAllowed && Array.isArray(value) && value.length > 0) {
    errors.add('search_indexes', `search_indexes are not allowed for ${type} tokens.`);
    return undefined;
  }
  return indexes;
};
