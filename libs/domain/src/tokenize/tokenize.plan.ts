// POST /tokenize: which tokens a body asks for, every one validated before any is
// created, and how the created tokens go back into the body's shape.
import { DomainError, FieldErrorCollector, validationError } from '../shared/errors';
import { isJsonObject, jsonTypeOf, type JsonObject } from '../shared/json-shape';
import { CREATE_TOKEN_PROPERTIES, validateCreateToken, type ValidationOptions, type ValidTokenCreate } from '../tokens/token-input.validate';
import { BODY_PATH, bodyFieldPath, bodyIndexPath, bodyKeyPath, countBodyValue, MAX_BODY_DEPTH } from './body-path';
import { runSteps, type Steps } from '../shared/steps';

/** Tokens one tokenize request may create (requests and leaves together). */
export const MAX_TOKENIZE_TOKENS = 100;

export interface PlannedToken {
  /** Where the request or leaf sits in the body (body-path.ts syntax); '' when the body is one token request. */
  path: string;
  /** The body's own value there: the request object, or the primitive leaf. */
  source: unknown;
  /** True for a primitive leaf, tokenized as a `token`-type token with the leaf as its data. */
  leaf: boolean;
  /** The request as validateCreateToken read it (for a leaf: `{ type: 'token', data: leaf }`). */
  request: ValidTokenCreate;
}

export interface TokenizePlan {
  /** In body order: depth first, arrays by index, objects by key order. */
  requests: PlannedToken[];
  /**
   * The body with the value at each request's path replaced by `created[i]` (same order as `requests`); `null` and
   * empty arrays or objects stay. Throws when `created` does not have one result per request (a caller bug).
   */
  rebuild<T>(created: readonly T[]): unknown;
}

/**
 * A token create request is an object with own properties `type` and `data`, whatever their values: a request with a
 * wrong type is reported as a 400 on its `type` rather than silently tokenized field by field. Every other object, and
 * every array, is walked.
 */
export const isTokenRequest = (value: unknown): value is JsonObject =>
  isJsonObject(value) && Object.hasOwn(value, 'type') && Object.hasOwn(value, 'data');

/**
 * Reads a tokenize body: a token create request, an array or an object (anything else is a 400 on `body`). Throws one
 * DomainError 'validation' naming every bad path (`[2].data`, `card.number.type`; a body that is one request reports
 * bare fields), a 400 on the first container nested deeper than 64 levels, or a 400 on `body` beyond 100 tokens.
 * The shape, depth and count are checked before any request is validated. All at once: see planTokenizeSteps.
 */
export const planTokenize = (body: unknown, options: ValidationOptions): TokenizePlan =>
  runSteps(planTokenizeSteps(body, options));

/** planTokenize, yielding after each request is validated (steps.ts): what a request handler drives. */
export function* planTokenizeSteps(body: unknown, options: ValidationOptions): Steps<TokenizePlan> {
  if (!isJsonObject(body) && !Array.isArray(body)) {
    throw validationError({
      [BODY_PATH]: [`The body must be a token create request, an array or an object, not ${jsonTypeOf(body)}.`],
    });
  }
  const found: Found[] = [];
  const shape = shapeOf(body, '', 1, found, { values: 0 });
  const errors = new FieldErrorCollector();
  const requests: Array<Found & { request: ValidTokenCreate | undefined }> = [];
  for (const item of found) {
    requests.push({ ...item, request: validated(item, options, errors) });
    yield;
  }
  reportRepeatedIds(requests, errors);
  errors.throwIfAny();
  return {
    requests: requests as PlannedToken[],
    rebuild: (created) => {
      if (created.length !== requests.length) {
        throw new Error(`rebuild needs ${requests.length} results, got ${created.length}.`);
      }
      return rebuilt(shape, created);
    },
  };
}

type Found = Omit<PlannedToken, 'request'>;

/** The body's structure, with a slot where each token goes. */
type Shape =
  | { kind: 'slot'; index: number }
  | { kind: 'null' }
  | { kind: 'array'; items: Shape[] }
  | { kind: 'object'; entries: Array<[string, Shape]> };

const shapeOf = (value: unknown, path: string, depth: number, found: Found[], counter: { values: number }): Shape => {
  countBodyValue(counter);
  if (value === null) return { kind: 'null' };
  const request = isTokenRequest(value);
  if (request || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    if (found.length === MAX_TOKENIZE_TOKENS) {
      throw validationError({ [BODY_PATH]: [`A tokenize request creates at most ${MAX_TOKENIZE_TOKENS} tokens.`] });
    }
    found.push({ path, source: value, leaf: !request });
    return { kind: 'slot', index: found.length - 1 };
  }
  if (depth > MAX_BODY_DEPTH) {
    throw validationError({ [path]: [`The body must not nest deeper than ${MAX_BODY_DEPTH} levels.`] });
  }
  if (Array.isArray(value)) {
    return { kind: 'array', items: value.map((item, i) => shapeOf(item, bodyIndexPath(path, i), depth + 1, found, counter)) };
  }
  if (isJsonObject(value)) {
    const entries = Object.keys(value).map((key): [string, Shape] => [key, shapeOf(value[key], bodyKeyPath(path, key), depth + 1, found, counter)]);
    return { kind: 'object', entries };
  }
  // Only parsed JSON reaches here; anything else (undefined, a function) is a caller bug, not a user's 400.
  throw new Error(`A tokenize body holds only JSON values, not ${typeof value}.`);
};

const rebuilt = (shape: Shape, created: readonly unknown[]): unknown => {
  switch (shape.kind) {
    case 'slot':
      return created[shape.index];
    case 'null':
      return null;
    case 'array':
      return shape.items.map((item) => rebuilt(item, created));
    case 'object':
      // fromEntries defines properties, so a `__proto__` key stays a key instead of setting the prototype.
      return Object.fromEntries(shape.entries.map(([key, item]) => [key, rebuilt(item, created)]));
  }
};

const KNOWN_PROPERTIES: readonly string[] = CREATE_TOKEN_PROPERTIES;

/**
 * Validates one request, reporting into `errors` under its path. Unknown properties are reported here, with the path
 * syntax that bounds and escapes keys, and left out of what validateCreateToken sees (which would echo them raw).
 */
const validated = (item: Found, options: ValidationOptions, errors: FieldErrorCollector): ValidTokenCreate | undefined => {
  if (item.leaf) {
    try {
      return validateCreateToken({ type: 'token', data: item.source }, options);
    } catch (error) {
      // A leaf is the data itself: its problems are the leaf's.
      reportInto(errors, error, (field) => (field === 'data' ? item.path : bodyFieldPath(item.path, field)));
      return undefined;
    }
  }
  const request = item.source as JsonObject;
  const known: JsonObject = {};
  for (const property of Object.keys(request)) {
    if (KNOWN_PROPERTIES.includes(property)) known[property] = request[property];
    else {
      const path = bodyKeyPath(item.path, property);
      errors.add(path, `${path} is not an allowed property.`);
    }
  }
  try {
    return validateCreateToken(known, options);
  } catch (error) {
    reportInto(errors, error, (field) => requestField(item.path, field));
    return undefined;
  }
};

/** Text that is already bounded and plain, so it reads the same as in a POST /tokens error. */
const PLAIN_KEY = /^[A-Za-z0-9_.-]{1,100}$/;

/** Metadata keys come from the caller: a long or odd one is re-written in the path syntax, which bounds and escapes it. */
const requestField = (path: string, field: string): string => {
  const key = field.startsWith('metadata.') ? field.slice('metadata.'.length) : null;
  if (key === null || PLAIN_KEY.test(key)) return bodyFieldPath(path, field);
  return bodyKeyPath(bodyFieldPath(path, 'metadata'), key);
};

const reportInto = (errors: FieldErrorCollector, error: unknown, pathOf: (field: string) => string): void => {
  if (!(error instanceof DomainError) || error.kind !== 'validation' || !error.errors) throw error;
  for (const [field, messages] of Object.entries(error.errors)) for (const message of messages) errors.add(pathOf(field), message);
};

/** Two requests with the same custom id cannot both be created: the second is a 400 before anything is written. */
const reportRepeatedIds = (
  requests: ReadonlyArray<Found & { request: ValidTokenCreate | undefined }>,
  errors: FieldErrorCollector,
): void => {
  const firstPath = new Map<string, string>();
  for (const { path, request } of requests) {
    if (!request?.id) continue;
    const earlier = firstPath.get(request.id);
    if (earlier === undefined) firstPath.set(request.id, path);
    else errors.add(bodyFieldPath(path, 'id'), `id is also the id of the request at ${earlier}.`);
  }
};
