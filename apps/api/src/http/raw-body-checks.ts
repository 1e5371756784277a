// A DTO body as parsed is reduced to what the DTO declares before class-transformer sees it: list maxima are checked
// (an oversized list costs no per-item work), property names of Object.prototype are refused (class-transformer
// silently skips them, or assigns through `__proto__`, so the whitelist never sees them), and every value the DTO
// does not walk into (scalars, unknown properties) is cut to an empty shell of its kind. Validation messages depend
// on a value's kind only, so they are unchanged; but a megabyte of objects sent where a string belongs costs nothing.
import { ArrayMaxSize, getMetadataStorage } from 'class-validator';
import { fieldErrorsOf, type FieldErrors } from '@vault/domain';

export type DtoClass = abstract new (...args: never[]) => unknown;

interface ListLimit {
  max: number;
  /** The DTO of the list's elements; without one, the elements are values (cut to shells like any other). */
  items?: () => DtoClass;
}

const LIMITS = new WeakMap<object, Map<string, ListLimit>>();

/**
 * A list of at most `max` elements, checked on the body as parsed (and by class-validator after transformation, which
 * keeps the rule visible where the DTO is read). `items` names the elements' DTO, whose own lists are checked too.
 */
export const MaxItems =
  (max: number, items?: () => DtoClass): PropertyDecorator =>
  (target, property) => {
    const limits = LIMITS.get(target.constructor) ?? new Map<string, ListLimit>();
    limits.set(String(property), { max, items });
    LIMITS.set(target.constructor, limits);
    ArrayMaxSize(max, { message: (args) => tooMany(args.property, max) })(target, property);
  };

const tooMany = (path: string, max: number, length?: number) =>
  `${path} must hold at most ${max} elements${length === undefined ? '' : `, not ${length}`}`;

/** `constructor`, `__proto__`, `toString`, `valueOf`, `hasOwnProperty`, … */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

export interface PreparedBody {
  /** Field errors found on the body as parsed, or null. */
  errors: FieldErrors | null;
  /** The body reduced to what `dto` declares; only meaningful without errors. */
  body: unknown;
}

/**
 * At most this many unknown properties are named in one answer. Past it, the body is refused here with those names
 * and one count on `body`, before class-validator would build (and the problem filter serialise) one error each.
 */
export const MAX_UNKNOWN_NAMED = 20;
/** Unknown property names are echoed in errors cut to this many characters, so the answer stays a few KB. */
export const MAX_ECHOED_NAME = 100;

/** `name` as an error message may echo it: at most MAX_ECHOED_NAME characters, never half a surrogate pair. */
export const echoedName = (name: string): string => {
  if (name.length <= MAX_ECHOED_NAME) return name;
  const end = /[\ud800-\udbff]/.test(name[MAX_ECHOED_NAME - 1]) ? MAX_ECHOED_NAME - 1 : MAX_ECHOED_NAME;
  return `${name.slice(0, end)}…`;
};

interface Walk {
  errors: Map<string, string[]>;
  /** Paths of the first MAX_UNKNOWN_NAMED unknown properties met, and how many there were in all. */
  unknown: string[];
  unknownCount: number;
}

/** Checks and reduces `body` for `dto` (see the file's comment). Work is bounded by the DTO's shape and list maxima. */
export const prepareDtoBody = (body: unknown, dto: DtoClass): PreparedBody => {
  const walk: Walk = { errors: new Map(), unknown: [], unknownCount: 0 };
  const reduced = reduce(body, dto, '', walk);
  if (walk.unknownCount > MAX_UNKNOWN_NAMED) {
    const more = walk.unknownCount - walk.unknown.length;
    const errors = new Map(walk.unknown.map((at) => [at, [`${at} is not a known property`]]));
    errors.set('body', [`body has ${more} more unknown properties; only the first ${MAX_UNKNOWN_NAMED} are named`]);
    return { errors: fieldErrorsOf(errors), body: undefined };
  }
  return { errors: walk.errors.size > 0 ? fieldErrorsOf(walk.errors) : null, body: reduced };
};

const reduce = (value: unknown, dto: DtoClass, path: string, walk: Walk): unknown => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return shell(value);
  // Counted before any per-key work: the declared properties present are looked up, not the body's keys.
  const keys = Object.keys(value);
  const known = declaredProperties(dto);
  let present = 0;
  for (const property of known) if (Object.hasOwn(value, property)) present++;
  const unknown = keys.length - present;
  if (unknown > 0) nameUnknown(keys, known, path, unknown, walk);
  if (walk.unknownCount > MAX_UNKNOWN_NAMED) return undefined;
  const { errors } = walk;
  const limits = LIMITS.get(dto);
  const reduced: Record<string, unknown> = {};
  for (const key of keys) {
    const at = path ? `${path}.${key}` : key;
    if (PROTOTYPE_NAMES.has(key)) {
      errors.set(at, [`${at} is not a known property`]);
      continue;
    }
    const child = (value as Record<string, unknown>)[key];
    const limit = limits?.get(key);
    if (!limit || !Array.isArray(child)) reduced[key] = shell(child);
    else if (child.length > limit.max) errors.set(at, [tooMany(at, limit.max, child.length)]);
    else reduced[key] = child.map((item, i) => (limit.items ? reduce(item, limit.items(), `${at}[${i}]`, walk) : shell(item)));
  }
  return reduced;
};

/** Notes the unknown properties of one object: names while fewer than the bound are named, counts all. */
const nameUnknown = (keys: string[], known: ReadonlySet<string>, path: string, unknown: number, walk: Walk): void => {
  walk.unknownCount += unknown;
  let left = unknown;
  for (let i = 0; i < keys.length && left > 0 && walk.unknown.length < MAX_UNKNOWN_NAMED; i++) {
    if (known.has(keys[i])) continue;
    left--;
    const name = echoedName(keys[i]);
    walk.unknown.push(path ? `${path}.${name}` : name);
  }
};

/** A value the DTO does not walk into: primitives as they are, arrays and objects empty. */
const shell = (value: unknown): unknown => (Array.isArray(value) ? [] : value !== null && typeof value === 'object' ? {} : value);

/** The properties `dto` declares to class-validator. */
export const knownProperties = (dto: DtoClass): Set<string> =>
  new Set(getMetadataStorage().getTargetValidationMetadatas(dto as never, '', true, false).map((m) => m.propertyName));

const DECLARED = new WeakMap<DtoClass, ReadonlySet<string>>();

/** knownProperties, read once per DTO: decorators run when the class is defined, so the set never changes after. */
const declaredProperties = (dto: DtoClass): ReadonlySet<string> => {
  let known = DECLARED.get(dto);
  if (!known) DECLARED.set(dto, (known = knownProperties(dto)));
  return known;
};
