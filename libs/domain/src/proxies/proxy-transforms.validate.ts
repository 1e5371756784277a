// A proxy's transforms, as a body gives them: a list per direction (at most MAX_TRANSFORMS), or the older single `code`
// transform form. Every problem is collected under the transform's path.
import { FieldErrorCollector } from '../shared/errors';
import { JsonPathError, parseJsonPath } from '../shared/json-path';
import { codePointLength, isJsonObject, jsonTypeOf, readEnum, rejectUnknownProperties, type JsonObject } from '../shared/json-shape';
import { mergeMetadata, readContainers } from '../tokens/token-fields.validate';
import { TOKEN_TYPES } from '../tokens/token-types';
import { PROXY_TRANSFORM_TYPES, type ProxyTransform, type TokenizeField } from './proxy.types';

/** Transforms per direction. */
export const MAX_TRANSFORMS = 10;
/** Fields a tokenize or mask transform names. */
export const MAX_TRANSFORM_FIELDS = 100;
/** In characters, as a formula's code. */
export const MAX_TRANSFORM_CODE_LENGTH = 50_000;

const TRANSFORM_PROPERTIES: Record<ProxyTransform['type'], readonly string[]> = {
  code: ['type', 'code'],
  tokenize: ['type', 'fields'],
  mask: ['type', 'fields'],
};

/**
 * The transforms of one direction: `list` (e.g. `request_transforms`) and `single` (e.g. `request_transform`, the older
 * `{ code }` form), of which at most one may be given. Absent both: none.
 */
export const readTransforms = (
  input: JsonObject,
  list: string,
  single: string,
  errors: FieldErrorCollector,
): ProxyTransform[] | undefined => {
  const many = input[list];
  const one = input[single];
  const givenMany = many !== undefined && many !== null;
  const givenOne = one !== undefined && one !== null;
  // A proxy as GET shows it carries both forms, the single one being the list's first code transform: sent back
  // that way, the list is what counts. Forms that disagree are refused.
  if (givenMany && givenOne && !singleRestatesList(one, many)) {
    errors.add(single, `Give ${single} or ${list}, not both: ${single} is a one-element ${list} of type code.`);
    return undefined;
  }
  if (givenOne && !givenMany) {
    if (!isJsonObject(one)) {
      errors.add(single, `${single} must be an object { "code": "…" }, not ${jsonTypeOf(one)}.`);
      return undefined;
    }
    const before = errorCount(errors);
    rejectUnknownProperties(one, ['code'], single, errors);
    const code = readCode(one, single, errors);
    return code === undefined || errorCount(errors) > before ? undefined : [{ type: 'code', code }];
  }
  if (!givenMany) return [];
  if (!Array.isArray(many)) {
    errors.add(list, `${list} must be an array of transforms, not ${jsonTypeOf(many)}.`);
    return undefined;
  }
  if (many.length > MAX_TRANSFORMS) {
    errors.add(list, `${list} must hold at most ${MAX_TRANSFORMS} transforms, not ${many.length}.`);
    return undefined;
  }
  const transforms: ProxyTransform[] = [];
  let valid = true;
  many.forEach((item, i) => {
    const transform = readTransform(item, `${list}[${i}]`, errors);
    if (transform === undefined) valid = false;
    else transforms.push(transform);
  });
  return valid ? transforms : undefined;
};

const readTransform = (item: unknown, path: string, errors: FieldErrorCollector): ProxyTransform | undefined => {
  if (!isJsonObject(item)) {
    errors.add(path, `${path} must be an object with a type, not ${jsonTypeOf(item)}.`);
    return undefined;
  }
  const type = readEnum(item, 'type', PROXY_TRANSFORM_TYPES, `${path}.type`, errors);
  if (type === undefined) return undefined;
  const problemsBefore = errorCount(errors);
  rejectUnknownProperties(item, TRANSFORM_PROPERTIES[type], path, errors);
  let transform: ProxyTransform | undefined;
  if (type === 'code') {
    const code = readCode(item, path, errors);
    transform = code === undefined ? undefined : { type, code };
  } else if (type === 'mask') {
    const fields = readFieldList(item.fields, `${path}.fields`, errors, (field, fieldPath) => readJsonPath(field, fieldPath, errors));
    transform = fields === undefined ? undefined : { type, fields };
  } else {
    const fields = readFieldList(item.fields, `${path}.fields`, errors, (field, fieldPath) => readTokenizeField(field, fieldPath, errors));
    transform = fields === undefined ? undefined : { type, fields };
  }
  return errorCount(errors) > problemsBefore ? undefined : transform;
};

/** Whether `single` is `{ code }` of the first code transform of `many`: what a proxy's view shows of both forms. */
const singleRestatesList = (single: unknown, many: unknown): boolean => {
  if (!isJsonObject(single) || !Array.isArray(many)) return false;
  const first = many.find((item) => isJsonObject(item) && item.type === 'code');
  return isJsonObject(first) && Object.keys(single).length === 1 && typeof single.code === 'string' && single.code === first.code;
};

const readCode = (object: JsonObject, path: string, errors: FieldErrorCollector): string | undefined => {
  const code = object.code;
  const at = `${path}.code`;
  if (code === undefined) {
    errors.add(at, `${at} is required.`);
    return undefined;
  }
  if (typeof code !== 'string') {
    errors.add(at, `${at} must be a string of JavaScript, not ${jsonTypeOf(code)}.`);
    return undefined;
  }
  if (code.trim() === '') {
    errors.add(at, `${at} must not be blank.`);
    return undefined;
  }
  if (code.length > MAX_TRANSFORM_CODE_LENGTH && codePointLength(code) > MAX_TRANSFORM_CODE_LENGTH) {
    errors.add(at, `${at} must be at most ${MAX_TRANSFORM_CODE_LENGTH} characters long.`);
    return undefined;
  }
  return code;
};

const readFieldList = <T>(
  value: unknown,
  path: string,
  errors: FieldErrorCollector,
  read: (field: unknown, path: string) => T | undefined,
): T[] | undefined => {
  if (!Array.isArray(value) || value.length === 0) {
    errors.add(path, `${path} must be a non-empty array.`);
    return undefined;
  }
  if (value.length > MAX_TRANSFORM_FIELDS) {
    errors.add(path, `${path} must hold at most ${MAX_TRANSFORM_FIELDS} fields, not ${value.length}.`);
    return undefined;
  }
  const fields: T[] = [];
  let valid = true;
  value.forEach((field, i) => {
    const one = read(field, `${path}[${i}]`);
    if (one === undefined) valid = false;
    else fields.push(one);
  });
  return valid ? fields : undefined;
};

const readJsonPath = (value: unknown, path: string, errors: FieldErrorCollector): string | undefined => {
  if (typeof value !== 'string') {
    errors.add(path, `${path} must be a JSONPath string such as $.card.number, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  try {
    parseJsonPath(value);
    return value;
  } catch (error) {
    if (!(error instanceof JsonPathError)) throw error;
    errors.add(path, `${path}: ${error.message}`);
    return undefined;
  }
};

const readTokenizeField = (value: unknown, path: string, errors: FieldErrorCollector): TokenizeField | undefined => {
  if (!isJsonObject(value)) {
    errors.add(path, `${path} must be an object { "json_path": "$…", "token": { "type": … } }, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  const before = errorCount(errors);
  rejectUnknownProperties(value, ['json_path', 'token'], path, errors);
  let jsonPath: string | undefined;
  if (value.json_path === undefined) errors.add(`${path}.json_path`, `${path}.json_path is required.`);
  else jsonPath = readJsonPath(value.json_path, `${path}.json_path`, errors);
  const tokenPath = `${path}.token`;
  const token = value.token;
  if (token === undefined) {
    errors.add(tokenPath, `${tokenPath} is required.`);
    return undefined;
  }
  if (!isJsonObject(token)) {
    errors.add(tokenPath, `${tokenPath} must be an object with a type, not ${jsonTypeOf(token)}.`);
    return undefined;
  }
  rejectUnknownProperties(token, ['type', 'containers', 'metadata', 'deduplicate_token'], tokenPath, errors);
  const deduplicate = token.deduplicate_token;
  if (deduplicate !== undefined && deduplicate !== null && typeof deduplicate !== 'boolean') {
    errors.add(`${tokenPath}.deduplicate_token`, `${tokenPath}.deduplicate_token must be a boolean, not ${jsonTypeOf(deduplicate)}.`);
  }
  const type = readEnum(token, 'type', TOKEN_TYPES, `${tokenPath}.type`, errors);
  const containers = token.containers === undefined || token.containers === null ? undefined : prefixed(tokenPath, errors, (inner) => readContainers(token.containers, inner));
  const metadata = token.metadata === undefined || token.metadata === null ? undefined : prefixed(tokenPath, errors, (inner) => mergeMetadata({}, token.metadata, inner));
  if (errorCount(errors) > before || jsonPath === undefined || type === undefined) return undefined;
  const deduplication = typeof deduplicate === 'boolean' ? { deduplicate_token: deduplicate } : {};
  return { json_path: jsonPath, token: { type, ...(containers ? { containers } : {}), ...(metadata ? { metadata } : {}), ...deduplication } };
};

/** Runs a token-field reader and files its problems under `prefix` (`request_transforms[0].fields[1].token.containers`). */
const prefixed = <T>(prefix: string, errors: FieldErrorCollector, read: (inner: FieldErrorCollector) => T | undefined): T | undefined => {
  const inner = new FieldErrorCollector();
  const value = read(inner);
  for (const [field, messages] of Object.entries(inner.toObject())) {
    for (const message of messages) errors.add(`${prefix}.${field}`, message.startsWith(field) ? `${prefix}.${message}` : message);
  }
  return value;
};

const errorCount = (errors: FieldErrorCollector): number => Object.values(errors.toObject()).reduce((sum, messages) => sum + messages.length, 0);
