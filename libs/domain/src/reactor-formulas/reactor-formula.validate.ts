// Validation of a create/update request body: every violation at once, keyed by field path.
import { FieldErrorCollector, validationError } from '../shared/errors';
import { iconProblem } from './formula-icon';
import {
  codePointLength,
  isBlank,
  isJsonObject,
  jsonTypeOf,
  readEnum,
  readOptionalString,
  readRequiredString,
  rejectUnknownProperties,
  type JsonObject,
} from '../shared/json-shape';
import {
  FORMULA_TYPES,
  FORMULA_VALUE_TYPES,
  type ConfigurationElement,
  type RequestParameterElement,
  type ValidFormulaInput,
} from './reactor-formula.types';

/** In Unicode code points (an emoji is one), for every length limit below. */
export const MAX_FORMULA_NAME_LENGTH = 200;
export const MAX_FORMULA_CODE_LENGTH = 50_000;
/** Bounds of our own (documented in the OpenAPI body schema): each list is checked before its items. */
export const MAX_FORMULA_DESCRIPTION_LENGTH = 2_000;
export const MAX_CONFIGURATION_ELEMENTS = 100;
export const MAX_REQUEST_PARAMETERS = 200;
/** For configuration and request parameter names and descriptions. */
export const MAX_ELEMENT_NAME_LENGTH = 200;
export const MAX_ELEMENT_DESCRIPTION_LENGTH = 2_000;

export const FORMULA_INPUT_PROPERTIES = [
  'name', 'description', 'type', 'icon', 'code', 'configuration', 'request_parameters',
] as const;

const CONFIGURATION_PROPERTIES = ['name', 'description', 'type'] as const;
const REQUEST_PARAMETER_PROPERTIES = ['name', 'description', 'type', 'optional'] as const;

const SERVICE_OWNED_HINTS: Record<string, string> = {
  status: 'The service sets status: private formulas are verified, official ones get the operator\'s status.',
  id: 'The service generates the id.',
};

/**
 * Checks a create/update body and returns it normalised (`description: null` and `optional: false` when absent).
 * Throws one DomainError 'validation' whose `errors` lists every violation. Compiling `code` is a separate,
 * asynchronous check (see assertCodeCompiles).
 */
export const validateFormulaInput = (body: unknown): ValidFormulaInput => {
  if (!isJsonObject(body)) {
    throw validationError({ body: [`The request body must be a JSON object, not ${jsonTypeOf(body)}.`] });
  }
  const errors = new FieldErrorCollector();
  const input = readFormulaInput(body, errors);
  errors.throwIfAny();
  return input as ValidFormulaInput;
};

/**
 * Reads the formula fields of `body` into `errors`; the result is complete only when no error was added.
 * `alsoAllowed` names properties a caller checks itself (the `id` and `status` of an official formula file).
 */
export const readFormulaInput = (
  body: JsonObject,
  errors: FieldErrorCollector,
  alsoAllowed: readonly string[] = [],
): Partial<ValidFormulaInput> => {
  rejectUnknownProperties(body, [...FORMULA_INPUT_PROPERTIES, ...alsoAllowed], '', errors, SERVICE_OWNED_HINTS);
  return {
    name: readLimitedString(body, 'name', 'name', MAX_FORMULA_NAME_LENGTH, errors),
    description: readLimitedDescription(body, 'description', MAX_FORMULA_DESCRIPTION_LENGTH, errors) ?? null,
    type: readEnum(body, 'type', FORMULA_TYPES, 'type', errors),
    icon: readIcon(body, errors),
    code: readLimitedString(body, 'code', 'code', MAX_FORMULA_CODE_LENGTH, errors),
    configuration: readList(body, 'configuration', MAX_CONFIGURATION_ELEMENTS, errors, readConfiguration),
    request_parameters: readList(body, 'request_parameters', MAX_REQUEST_PARAMETERS, errors, readRequestParameters),
  };
};

const tooLong = (path: string, max: number, length: number) => `${path} must be at most ${max} characters, not ${length}.`;

const readLimitedString = (
  object: JsonObject,
  property: string,
  path: string,
  max: number,
  errors: FieldErrorCollector,
): string | undefined => {
  const value = readRequiredString(object, property, path, errors);
  if (value === undefined) return undefined;
  // A UTF-16 length within the limit is within it in code points too; only longer strings need counting.
  const length = value.length <= max ? value.length : codePointLength(value);
  if (length > max) {
    errors.add(path, tooLong(path, max, length));
    return undefined;
  }
  return value;
};

/** An optional description (absent and null give null) of at most `max` code points. */
const readLimitedDescription = (
  object: JsonObject,
  path: string,
  max: number,
  errors: FieldErrorCollector,
): string | null | undefined => {
  const value = readOptionalString(object, 'description', path, errors);
  if (typeof value !== 'string' || value.length <= max) return value;
  const length = codePointLength(value);
  if (length <= max) return value;
  errors.add(path, tooLong(path, max, length));
  return undefined;
};

const readIcon = (body: JsonObject, errors: FieldErrorCollector): string | null | undefined => {
  const icon = readOptionalString(body, 'icon', 'icon', errors);
  if (typeof icon !== 'string') return icon;
  const problem = iconProblem(icon);
  if (problem) errors.add('icon', problem);
  return problem ? undefined : icon;
};

/**
 * Reads a required array of at most `max` elements and hands them, with their paths, to `readElements`. The length
 * is checked first: an oversized list costs nothing per element.
 */
const readList = <T>(
  body: JsonObject,
  property: string,
  max: number,
  errors: FieldErrorCollector,
  readElements: (items: unknown[], errors: FieldErrorCollector) => T[],
): T[] | undefined => {
  const value = body[property];
  if (value === undefined) {
    errors.add(property, `${property} is required (send [] when there is none).`);
    return undefined;
  }
  if (!Array.isArray(value)) {
    errors.add(property, `${property} must be an array, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  if (value.length > max) {
    errors.add(property, `${property} must hold at most ${max} elements, not ${value.length}.`);
    return undefined;
  }
  return readElements(value, errors);
};

/** The element at `path` as an object, or undefined after reporting what it is instead. */
const elementObject = (item: unknown, path: string, errors: FieldErrorCollector): JsonObject | undefined => {
  if (isJsonObject(item)) return item;
  errors.add(path, `${path} must be an object, not ${jsonTypeOf(item)}.`);
  return undefined;
};

const readConfiguration = (items: unknown[], errors: FieldErrorCollector): ConfigurationElement[] => {
  const declaredAt = new Map<string, number>();
  const result: ConfigurationElement[] = [];
  items.forEach((item, index) => {
    const path = `configuration[${index}]`;
    const element = elementObject(item, path, errors);
    if (!element) return;
    rejectUnknownProperties(element, CONFIGURATION_PROPERTIES, path, errors);
    const name = readLimitedString(element, 'name', `${path}.name`, MAX_ELEMENT_NAME_LENGTH, errors);
    if (name !== undefined) {
      const earlier = declaredAt.get(name);
      if (name.includes('.')) {
        errors.add(`${path}.name`, `${path}.name must not contain ".": configuration has no nested settings.`);
      } else if (earlier !== undefined) {
        errors.add(`${path}.name`, `${path}.name is already declared by configuration[${earlier}].`);
      } else {
        declaredAt.set(name, index);
      }
    }
    const description = readLimitedDescription(element, `${path}.description`, MAX_ELEMENT_DESCRIPTION_LENGTH, errors);
    const type = readEnum(element, 'type', FORMULA_VALUE_TYPES, `${path}.type`, errors);
    if (name !== undefined && description !== undefined && type !== undefined) result.push({ name, description, type });
  });
  return result;
};

const readRequestParameters = (items: unknown[], errors: FieldErrorCollector): RequestParameterElement[] => {
  const names = new ParameterNames();
  const result: RequestParameterElement[] = [];
  items.forEach((item, index) => {
    const path = `request_parameters[${index}]`;
    const element = elementObject(item, path, errors);
    if (!element) return;
    rejectUnknownProperties(element, REQUEST_PARAMETER_PROPERTIES, path, errors);
    const name = readLimitedString(element, 'name', `${path}.name`, MAX_ELEMENT_NAME_LENGTH, errors);
    if (name !== undefined) {
      const problem = names.declare(name, index);
      if (problem) errors.add(`${path}.name`, `${path}.name ${problem}`);
    }
    const description = readLimitedDescription(element, `${path}.description`, MAX_ELEMENT_DESCRIPTION_LENGTH, errors);
    const type = readEnum(element, 'type', FORMULA_VALUE_TYPES, `${path}.type`, errors);
    const optional = readOptionalFlag(element, `${path}.optional`, errors);
    if (name !== undefined && description !== undefined && type !== undefined && optional !== undefined) {
      result.push({ name, description, type, optional });
    }
  });
  return result;
};

/**
 * The request parameter names declared so far. A name is a path into `args`; two names clash when they are equal or
 * when one is a leaf value and the other reaches inside it (`a` and `a.b`), since `args.a` cannot be both a value and
 * an object. Each check is a few Map lookups per segment of the new name, so a list costs time linear in its size.
 * Messages point at the other element by index and never quote a name (names are request values).
 */
class ParameterNames {
  /** Declared name → index of the element declaring it. */
  private readonly leaves = new Map<string, number>();
  /** Every proper prefix of a declared name (`a`, `a.b` for `a.b.c`) → index of the first element with it. */
  private readonly parents = new Map<string, number>();

  /** Declares `name` when it clashes with nothing declared before; else returns what is wrong with it. */
  declare(name: string, index: number): string | null {
    const segments = name.split('.');
    if (segments.some(isBlank)) return 'must be a dotted path of non-empty segments, such as card.number.';
    const duplicate = this.leaves.get(name);
    if (duplicate !== undefined) return `is already declared by ${at(duplicate)}.`;
    const prefixes = properPrefixes(name);
    for (const prefix of prefixes) {
      const leaf = this.leaves.get(prefix);
      if (leaf !== undefined) {
        return `reaches inside ${at(leaf)}.name, which is declared as a value; a name cannot be both a value and an object.`;
      }
    }
    const child = this.parents.get(name);
    if (child !== undefined) {
      return `is a value, but ${at(child)}.name is declared inside it; a name cannot be both a value and an object.`;
    }
    this.leaves.set(name, index);
    for (const prefix of prefixes) if (!this.parents.has(prefix)) this.parents.set(prefix, index);
    return null;
  }
}

const at = (index: number) => `request_parameters[${index}]`;

/** `a`, `a.b` for `a.b.c`. */
const properPrefixes = (name: string): string[] => {
  const prefixes: string[] = [];
  for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) prefixes.push(name.slice(0, dot));
  return prefixes;
};

const readOptionalFlag = (element: JsonObject, path: string, errors: FieldErrorCollector): boolean | undefined => {
  const value = element.optional;
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  errors.add(path, `${path} must be a boolean, not ${jsonTypeOf(value)}.`);
  return undefined;
};
