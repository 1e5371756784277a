// Checks on a DTO body as parsed, before class-transformer builds anything from it: list maxima (so an oversized list
// costs no per-item work) and property names of Object.prototype, which class-transformer silently skips or assigns
// through (`__proto__`), so the whitelist never sees them.
import { ArrayMaxSize } from 'class-validator';
import { fieldErrorsOf, type FieldErrors } from '@vault/domain';

type Class = abstract new (...args: never[]) => unknown;

interface ListLimit {
  max: number;
  /** The DTO of the list's elements, whose own limits apply to each element. */
  items?: () => Class;
}

const LIMITS = new WeakMap<object, Map<string, ListLimit>>();

/**
 * A list of at most `max` elements, checked on the raw body before transformation (and by class-validator after it,
 * which keeps the rule visible where the DTO is read). `items` names the elements' DTO when they have limits too.
 */
export const MaxItems =
  (max: number, items?: () => Class): PropertyDecorator =>
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

/**
 * Field errors of `body` against `dto`'s list maxima and prototype-named properties, or null when there are none.
 * Walks the whole body once with its own stack (the body parser already bounds its depth and size).
 */
export const rawBodyErrors = (body: unknown, dto: Class): FieldErrors | null => {
  const errors = new Map<string, string[]>();
  const add = (path: string, message: string) => errors.set(path, [...(errors.get(path) ?? []), message]);
  const pending: { value: unknown; path: string; dto?: Class }[] = [{ value: body, path: '', dto }];
  while (pending.length > 0) {
    const { value, path, dto: type } = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push({ value: item, path: `${path}[${i}]`, dto: type }));
      continue;
    }
    const limits = type ? LIMITS.get(type) : undefined;
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      const childPath = path ? `${path}.${key}` : key;
      if (PROTOTYPE_NAMES.has(key)) {
        add(childPath, `${childPath} is not a known property`);
        continue;
      }
      const limit = limits?.get(key);
      if (limit && Array.isArray(child) && child.length > limit.max) {
        add(childPath, tooMany(childPath, limit.max, child.length));
        continue;
      }
      pending.push({ value: child, path: childPath, dto: limit?.items?.() });
    }
  }
  return errors.size > 0 ? fieldErrorsOf(errors) : null;
};
