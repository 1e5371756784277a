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

/** Checks and reduces `body` for `dto` (see the file's comment). Work is bounded by the DTO's shape and list maxima. */
export const prepareDtoBody = (body: unknown, dto: DtoClass): PreparedBody => {
  const errors = new Map<string, string[]>();
  const reduced = reduce(body, dto, '', errors);
  return { errors: errors.size > 0 ? fieldErrorsOf(errors) : null, body: reduced };
};

const reduce = (value: unknown, dto: DtoClass, path: string, errors: Map<string, string[]>): unknown => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return shell(value);
  const limits = LIMITS.get(dto);
  const reduced: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const at = path ? `${path}.${key}` : key;
    if (PROTOTYPE_NAMES.has(key)) {
      errors.set(at, [`${at} is not a known property`]);
      continue;
    }
    const child = (value as Record<string, unknown>)[key];
    const limit = limits?.get(key);
    if (!limit || !Array.isArray(child)) reduced[key] = shell(child);
    else if (child.length > limit.max) errors.set(at, [tooMany(at, limit.max, child.length)]);
    else reduced[key] = child.map((item, i) => (limit.items ? reduce(item, limit.items(), `${at}[${i}]`, errors) : shell(item)));
  }
  return reduced;
};

/** A value the DTO does not walk into: primitives as they are, arrays and objects empty. */
const shell = (value: unknown): unknown => (Array.isArray(value) ? [] : value !== null && typeof value === 'object' ? {} : value);

/** The properties `dto` declares to class-validator. */
export const knownProperties = (dto: DtoClass): Set<string> =>
  new Set(getMetadataStorage().getTargetValidationMetadatas(dto as never, '', true, false).map((m) => m.propertyName));
