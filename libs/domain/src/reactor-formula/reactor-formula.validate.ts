// Validation of a create/update request body (API.md "Reactor formulas"): every violation at once, keyed by field path.
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
} from './json-shape';
import {
  FORMULA_TYPES,
  FORMULA_VALUE_TYPES,
  type ConfigurationElement,
  type RequestParameterElement,
  type ValidFormulaInput,
} from './reactor-formula.types';

/** In Unicode code points (an emoji is one), for both limits. */
export const MAX_FORMULA_NAME_LENGTH = 200;
export const MAX_FORMULA_CODE_LENGTH = 50_000;

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
    name: readLimitedString(body, 'name', MAX_FORMULA_NAME_LENGTH, errors),
    description: readOptionalString(body, 'description', 'description', errors) ?? null,
    type: readEnum(body, 'type', FORMULA_TYPES, 'type', errors),
    icon: readIcon(body, errors),
    code: readLimitedString(body, 'code', MAX_FORMULA_CODE_LENGTH, errors),
    configuration: readList(body, 'configuration', errors, readConfiguration),
    request_parameters: readList(body, 'request_parameters', errors, readRequestParameters),
  };
};

const readLimitedString = (
  body: JsonObject,
  property: string,
  max: number,
  errors: FieldErrorCollector,
): string | undefined => {
  const value = readRequiredString(body, property, property, errors);
  if (value === undefined) return undefined;
  const length = codePointLength(value);
  if (length > max) {
    errors.add(property, `${property} must be at most ${max} characters, not ${length}.`);
    return undefined;
  }
  return value;
};

const readIcon = (body: JsonObject, errors: FieldErrorCollector): string | null | undefined => {
  const icon = readOptionalString(body, 'icon', 'icon', errors);
  if (typeof icon !== 'string') return icon;
  const problem = iconProblem(icon);
  if (problem) errors.add('icon', problem);
  return problem ? undefined : icon;
};

/** Reads a required array and hands its elements, with their paths, to `readElements`. */
const readList = <T>(
  body: JsonObject,
  property: string,
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
    const name = readRequiredString(element, 'name', `${path}.name`, errors);
    if (name !== undefined) {
      if (name.includes('.')) {
        errors.add(`${path}.name`, `${path}.name must not contain ".": configuration has no nested settings.`);
      } else if (declaredAt.has(name)) {
        errors.add(`${path}.name`, `${path}.name "${name}" is already declared by configuration[${declaredAt.get(name)}].`);
      } else {
        declaredAt.set(name, index);
      }
    }
    const description = readOptionalString(element, 'description', `${path}.description`, errors);
    const type = readEnum(element, 'type', FORMULA_VALUE_TYPES, `${path}.type`, errors);
    if (name !== undefined && description !== undefined && type !== undefined) result.push({ name, description, type });
  });
  return result;
};

const readRequestParameters = (items: unknown[], errors: FieldErrorCollector): RequestParameterElement[] => {
  const declared: { name: string; index: number }[] = [];
  const result: RequestParameterElement[] = [];
  items.forEach((item, index) => {
    const path = `request_parameters[${index}]`;
    const element = elementObject(item, path, errors);
    if (!element) return;
    rejectUnknownProperties(element, REQUEST_PARAMETER_PROPERTIES, path, errors);
    const name = readRequiredString(element, 'name', `${path}.name`, errors);
    if (name !== undefined) {
      const problem = parameterNameProblem(name, declared);
      if (problem) errors.add(`${path}.name`, `${path}.name ${problem}`);
      else declared.push({ name, index });
    }
    const description = readOptionalString(element, 'description', `${path}.description`, errors);
    const type = readEnum(element, 'type', FORMULA_VALUE_TYPES, `${path}.type`, errors);
    const optional = readOptionalFlag(element, `${path}.optional`, errors);
    if (name !== undefined && description !== undefined && type !== undefined && optional !== undefined) {
      result.push({ name, description, type, optional });
    }
  });
  return result;
};

/**
 * A parameter name is a path into `args`; two names clash when they are equal or when one is a leaf value and the
 * other reaches inside it (`a` and `a.b`), since `args.a` cannot be both a value and an object.
 */
const parameterNameProblem = (name: string, declared: { name: string; index: number }[]): string | null => {
  if (name.split('.').some(isBlank)) {
    return `"${name}" must be a dotted path of non-empty segments, such as card.number.`;
  }
  for (const other of declared) {
    const at = `request_parameters[${other.index}]`;
    if (other.name === name) return `"${name}" is already declared by ${at}.`;
    if (name.startsWith(`${other.name}.`)) {
      return `"${name}" reaches inside "${other.name}", which ${at} declares as a value; a name cannot be both a value and an object.`;
    }
    if (other.name.startsWith(`${name}.`)) {
      return `"${name}" is a value, but ${at} declares "${other.name}" inside it; a name cannot be both a value and an object.`;
    }
  }
  return null;
};

const readOptionalFlag = (element: JsonObject, path: string, errors: FieldErrorCollector): boolean | undefined => {
  const value = element.optional;
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  errors.add(path, `${path} must be a boolean, not ${jsonTypeOf(value)}.`);
  return undefined;
};
