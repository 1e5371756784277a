// Small readers for untyped JSON request bodies that report a precise message per field into a collector.
import type { FieldErrorCollector } from './errors';

export type JsonObject = Record<string, unknown>;

/** The JSON name of a value's type, as a user reading the message would call it. */
export const jsonTypeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
};

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Joins a parent path and a property into the field path used as an errors key (`configuration[0].name`). */
export const fieldPath = (parent: string, property: string): string => (parent ? `${parent}.${property}` : property);

/** At most this many unknown properties are named in one answer, however many objects the request holds. */
export const MAX_UNKNOWN_NAMED = 20;
/** An unknown property's name is echoed cut to this many characters, so the answer stays a few KB. */
export const MAX_ECHOED_NAME = 100;

/** `name` as an error message may echo it: at most MAX_ECHOED_NAME characters, never half a surrogate pair. */
export const echoedName = (name: string): string => {
  if (name.length <= MAX_ECHOED_NAME) return name;
  const code = name.charCodeAt(MAX_ECHOED_NAME - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? MAX_ECHOED_NAME - 1 : MAX_ECHOED_NAME;
  return `${name.slice(0, end)}…`;
};

/** Unknown properties named so far into each collector, across the objects of one request. */
const NAMED = new WeakMap<FieldErrorCollector, number>();

/**
 * Reports every property of `object` not in `allowed`, keyed by its own path so the caller sees which one. Names
 * come from the request (`constructor`, `__proto__`), so hints are looked up as own properties only. Past
 * MAX_UNKNOWN_NAMED names into one collector, the rest of an object's unknown properties are one count on the
 * object's path (`body` at the top): they are counted from `allowed`, never visited one by one.
 */
export const rejectUnknownProperties = (
  object: JsonObject,
  allowed: readonly string[],
  parent: string,
  errors: FieldErrorCollector,
  hints: Readonly<Record<string, string>> = {},
): void => {
  const keys = Object.keys(object);
  let unknown = keys.length;
  for (const property of allowed) if (Object.hasOwn(object, property)) unknown--;
  let named = NAMED.get(errors) ?? 0;
  for (let i = 0; i < keys.length && unknown > 0 && named < MAX_UNKNOWN_NAMED; i++) {
    const property = keys[i];
    if (allowed.includes(property)) continue;
    const path = fieldPath(parent, echoedName(property));
    const hint = Object.hasOwn(hints, property) ? ` ${hints[property]}` : '';
    errors.add(path, `${path} is not an allowed property.${hint}`);
    unknown--;
    named++;
  }
  NAMED.set(errors, named);
  if (unknown > 0) {
    const where = parent || 'body';
    errors.add(where, `${where} has ${unknown} more properties that are not allowed; only the first ${MAX_UNKNOWN_NAMED} are named.`);
  }
};

/** Length in Unicode code points, so an emoji counts as one character, as a user counts it. */
export const codePointLength = (text: string): number => {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
};

export const isBlank = (text: string): boolean => text.trim().length === 0;

/** Reads a required string: missing, non-string and blank values are reported, and give undefined. */
export const readRequiredString = (
  object: JsonObject,
  property: string,
  path: string,
  errors: FieldErrorCollector,
): string | undefined => {
  const value = object[property];
  if (value === undefined) {
    errors.add(path, `${path} is required.`);
    return undefined;
  }
  if (typeof value !== 'string') {
    errors.add(path, `${path} must be a string, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  if (isBlank(value)) {
    errors.add(path, `${path} must not be empty.`);
    return undefined;
  }
  return value;
};

/** Reads an optional string: absent and null give null; anything but a string is reported and gives undefined. */
export const readOptionalString = (
  object: JsonObject,
  property: string,
  path: string,
  errors: FieldErrorCollector,
): string | null | undefined => {
  const value = object[property];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    errors.add(path, `${path} must be a string or null, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  return value;
};

/** Reads a required string that must be one of `choices`; the message names the choices, never the value sent. */
export const readEnum = <T extends string>(
  object: JsonObject,
  property: string,
  choices: readonly T[],
  path: string,
  errors: FieldErrorCollector,
): T | undefined => {
  const value = object[property];
  if (value === undefined) {
    errors.add(path, `${path} is required.`);
    return undefined;
  }
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    const got = typeof value === 'string' ? 'another string' : jsonTypeOf(value);
    errors.add(path, `${path} must be one of ${choices.join(', ')}, not ${got}.`);
    return undefined;
  }
  return value as T;
};
