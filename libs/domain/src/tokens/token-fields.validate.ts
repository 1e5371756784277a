// Readers for the individual fields of a token request body. Each reports into a collector with the field's path and
// returns undefined when it reported something. No message quotes a value of the body; field paths may hold its keys.
import type { FieldErrorCollector } from '../shared/errors';
import { isUuid } from '../shared/uuid';
import { codePointLength, isJsonObject, jsonTypeOf } from '../shared/json-shape';
import type { ExpressionEngine } from './expression-engine';

export const MAX_CONTAINERS = 10;
export const MAX_METADATA_ENTRIES = 50;
export const MAX_METADATA_KEY_LENGTH = 100;
export const MAX_METADATA_VALUE_LENGTH = 500;
/** Bounds of our own: they keep parsing and evaluation per request small. */
export const MAX_EXPRESSION_LENGTH = 2_000;
export const MAX_SEARCH_INDEXES = 20;

export const CONTAINER_PATTERN = /^\/([a-z0-9_-]+\/)*$/;
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,100}$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2}):(\d{2}))$/i;

export { isUuid };

/** Reads a UUID, lower-cased so one id has one spelling (and one stream). */
export const readUuid = (value: unknown, path: string, errors: FieldErrorCollector): string | undefined => {
  if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
  errors.add(path, `${path} must be a UUID.`);
  return undefined;
};

/**
 * Lower-cases, checks and de-duplicates container paths; a path is valid if its lower-case form is. A list longer
 * than MAX_CONTAINERS is refused before any item is read, duplicates included.
 */
export const readContainers = (value: unknown, errors: FieldErrorCollector): string[] | undefined => {
  if (!Array.isArray(value)) {
    errors.add('containers', `containers must be an array of container paths, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  if (value.length === 0) {
    errors.add('containers', 'containers must hold at least one container.');
    return undefined;
  }
  if (value.length > MAX_CONTAINERS) {
    errors.add('containers', `containers must hold at most ${MAX_CONTAINERS} containers, not ${value.length}.`);
    return undefined;
  }
  const containers = new Set<string>();
  let valid = true;
  value.forEach((item, i) => {
    const path = `containers[${i}]`;
    if (typeof item !== 'string' || !CONTAINER_PATTERN.test(item.toLowerCase())) {
      errors.add(path, `${path} must be a path like /pci/high/: /-delimited segments of a-z, 0-9, _ or -.`);
      valid = false;
    } else containers.add(item.toLowerCase());
  });
  return valid ? [...containers] : undefined;
};

/**
 * Merges `value` (an object of string or null values) into `base`: a string sets a key, null removes it (RFC 7396).
 * A create passes an empty base, so null values there simply leave the key out. An object of more than
 * MAX_METADATA_ENTRIES keys is refused before any is read. Keys are the caller's, so `__proto__` or `constructor`
 * are ordinary keys: the merge runs on a Map and the result has every key as an own data property, which
 * JSON.stringify (events, read models, responses) keeps.
 */
export const mergeMetadata = (
  base: Record<string, string>,
  value: unknown,
  errors: FieldErrorCollector,
): Record<string, string> | undefined => {
  if (!isJsonObject(value)) {
    errors.add('metadata', `metadata must be an object of string values, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_METADATA_ENTRIES) {
    errors.add('metadata', `metadata must hold at most ${MAX_METADATA_ENTRIES} entries, not ${keys.length}.`);
    return undefined;
  }
  const merged = new Map(Object.entries(base));
  let valid = true;
  for (const key of keys) {
    const item = value[key];
    const path = `metadata.${key}`;
    if (!METADATA_KEY.test(key)) {
      errors.add(path, `metadata keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters of A-Z, a-z, 0-9, _, . or -.`);
      valid = false;
    } else if (item === null) merged.delete(key);
    else if (typeof item !== 'string') {
      errors.add(path, `${path} must be a string, not ${jsonTypeOf(item)}.`);
      valid = false;
    } else if (item.length > MAX_METADATA_VALUE_LENGTH && codePointLength(item) > MAX_METADATA_VALUE_LENGTH) {
      errors.add(path, `${path} must be at most ${MAX_METADATA_VALUE_LENGTH} characters long.`);
      valid = false;
    } else merged.set(key, item);
  }
  if (merged.size > MAX_METADATA_ENTRIES) {
    errors.add('metadata', `metadata must hold at most ${MAX_METADATA_ENTRIES} entries.`);
    valid = false;
  }
  return valid ? Object.fromEntries(merged) : undefined;
};

/** Reads one Liquid expression that must parse. */
export const readExpression = (
  value: unknown,
  path: string,
  engine: ExpressionEngine,
  errors: FieldErrorCollector,
): string | undefined => {
  if (typeof value !== 'string') {
    errors.add(path, `${path} must be a Liquid expression string, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  if (value.trim() === '') {
    errors.add(path, `${path} must not be empty.`);
    return undefined;
  }
  if (value.length > MAX_EXPRESSION_LENGTH) {
    errors.add(path, `${path} must be at most ${MAX_EXPRESSION_LENGTH} characters long.`);
    return undefined;
  }
  const problem = engine.validate(value);
  if (problem === null) return value;
  errors.add(path, `${path} is not a valid expression: ${describeParseProblem(problem)}`);
  return undefined;
};

/** What Liquid says is wrong, by kind. Its own messages quote the expression, which is a request value. */
const PARSE_PROBLEMS: [RegExp, string][] = [
  [/^undefined filter\b/, 'an unknown filter'],
  [/^tag .* not found\b/, 'an unknown tag'],
  [/\bnot closed\b/, 'a tag, output or bracket that is not closed'],
  [/^illegal tag\b/, 'a tag where Liquid does not allow it'],
  [/^invalid value expression\b/, 'a missing or invalid value'],
];

/** The kind of a parse problem and where it is (`an unknown filter (line 1, column 9)`), never an excerpt. */
export const describeParseProblem = (problem: string): string => {
  const kind = PARSE_PROBLEMS.find(([pattern]) => pattern.test(problem))?.[1] ?? 'a syntax error';
  const at = /line:(\d+), col:(\d+)/.exec(problem);
  return at ? `${kind} (line ${at[1]}, column ${at[2]}).` : `${kind}.`;
};

/** Reads the list of search index expressions; whether each yields one value is checked once data is known. */
export const readSearchIndexes = (
  value: unknown,
  engine: ExpressionEngine,
  errors: FieldErrorCollector,
): string[] | undefined => {
  if (!Array.isArray(value)) {
    errors.add('search_indexes', `search_indexes must be an array of expressions, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  if (value.length > MAX_SEARCH_INDEXES) {
    errors.add('search_indexes', `search_indexes must hold at most ${MAX_SEARCH_INDEXES} expressions.`);
    return undefined;
  }
  const read = value.map((item, i) => readExpression(item, `search_indexes[${i}]`, engine, errors));
  return read.every((item) => item !== undefined) ? (read as string[]) : undefined;
};

/** Reads an ISO 8601 date-time with a time zone (Z or ±hh:mm) later than `now`; returns it in UTC. */
export const readExpiresAt = (value: unknown, now: Date, errors: FieldErrorCollector): string | undefined => {
  const instant = typeof value === 'string' ? parseDateTime(value) : null;
  if (instant === null) {
    errors.add('expires_at', 'expires_at must be an ISO 8601 date-time with a time zone, like 2030-01-31T12:00:00Z.');
    return undefined;
  }
  if (instant <= now.getTime()) {
    errors.add('expires_at', 'expires_at must be in the future.');
    return undefined;
  }
  return new Date(instant).toISOString();
};

/** Epoch milliseconds, or null for anything that is not a real calendar date-time (Feb 30 and 24:00 included). */
const parseDateTime = (text: string): number | null => {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hours, minutes, seconds] = match.slice(1, 7).map((part) => Number(part ?? 0));
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (daysInMonth === undefined || day < 1 || day > daysInMonth || hours > 23 || minutes > 59 || seconds > 59) return null;
  if (match[8] !== undefined && (Number(match[8]) > 23 || Number(match[9]) > 59)) return null;
  const instant = Date.parse(text);
  return Number.isNaN(instant) ? null : instant;
};
