// Validation of a reactor create/update body against the formula and application it names: one
// 400 listing every violation, keyed by field path. Runs on the plaintext configuration, before the handler seals it;
// no message ever quotes a configuration value (they are secrets), only setting names and JSON types.
import { conflict, FieldErrorCollector, validationError } from '../shared/errors';
import {
  codePointLength,
  isJsonObject,
  jsonTypeOf,
  readRequiredString,
  rejectUnknownProperties,
  type JsonObject,
} from '../shared/json-shape';
import { isUuid } from '../shared/uuid';
import { MAX_CONFIGURATION_ELEMENTS, MAX_ELEMENT_NAME_LENGTH } from '../reactor-formulas/reactor-formula.validate';
import type { FormulaValueType } from '../reactor-formulas/reactor-formula.types';
import { applicationProblem, configurationShapeOf, formulaProblem, isFormulaVisible } from './reactor.rules';
import type {
  ConfigurationShape,
  ConfigurationValue,
  ReactorApplicationSnapshot,
  ReactorConfiguration,
  ReactorFormulaSnapshot,
} from './reactor.types';

/** In Unicode code points, as for formulas. */
export const MAX_REACTOR_NAME_LENGTH = 200;
/** Our own bound (documented in the OpenAPI body schema): an upstream API key or URL fits many times over. */
export const MAX_CONFIGURATION_VALUE_LENGTH = 10_000;

export const CREATE_REACTOR_PROPERTIES = ['name', 'formula', 'configuration', 'application'] as const;
export const UPDATE_REACTOR_PROPERTIES = ['name', 'configuration', 'application'] as const;

const UPDATE_HINTS: Record<string, string> = {
  formula: 'A reactor keeps its formula; create a new reactor to use another one.',
};

/** A create body after validation: what the handler seals (`configuration`) and records (the rest). */
export interface ValidReactorInput {
  name: string;
  /** Lower-case. */
  formula_id: string;
  /** Plaintext, in the formula's declaration order: seal it (JSON text) before it leaves memory. */
  configuration: ReactorConfiguration;
  /** Not secret: goes into the command's content as it is. */
  configuration_shape: ConfigurationShape;
  /** Lower-case; null when the body has no application. */
  application_id: string | null;
}

/** A PUT body (or a merge-patched reactor) after validation: the reactor's formula does not change. */
export type ValidReactorUpdate = Omit<ValidReactorInput, 'formula_id'>;

/** The ids a body refers to, so the handler knows which snapshots to read before validating. */
export interface ReactorReferences {
  /** Lower-case; null when `formula.id` is absent or not a UUID (validation then reports it). */
  formulaId: string | null;
  /** Lower-case; null when there is no application or its id is not a UUID (validation then reports it). */
  applicationId: string | null;
}

export const reactorReferences = (body: unknown): ReactorReferences => {
  const idIn = (property: string): string | null => {
    const reference = isJsonObject(body) ? body[property] : undefined;
    const id = isJsonObject(reference) ? reference.id : undefined;
    return typeof id === 'string' && isUuid(id) ? id.toLowerCase() : null;
  };
  return { formulaId: idIn('formula'), applicationId: idIn('application') };
};

/**
 * Checks a POST /reactors body for the caller's tenant. `formula` is the snapshot of `reactorReferences(body).formulaId`
 * (null when that is null, or when no such formula exists), `application` that of `applicationId` (likewise).
 * Throws one DomainError 'validation' whose `errors` lists every violation.
 */
export const validateReactorInput = (
  body: unknown,
  formula: ReactorFormulaSnapshot | null,
  application: ReactorApplicationSnapshot | null,
  tenantId: string,
): ValidReactorInput => {
  const input = requireObject(body);
  const errors = new FieldErrorCollector();
  rejectUnknownProperties(input, CREATE_REACTOR_PROPERTIES, '', errors);
  const name = readName(input, errors);
  const formulaId = readReference(input, 'formula', errors);
  let contract: ReactorFormulaSnapshot['configuration'] | null = null;
  if (formulaId !== undefined && formulaId !== null) {
    assertSnapshotOf(formula, formulaId, 'formula');
    const problem = formulaProblem(formula, tenantId);
    if (problem) errors.add('formula.id', problem);
    // A coming-soon formula still has a contract: checking the configuration against it reports everything at once.
    if (isFormulaVisible(formula, tenantId)) contract = formula.configuration;
  }
  const configuration = readConfiguration(input.configuration, contract, errors);
  const applicationId = readApplication(input, application, tenantId, errors);
  errors.throwIfAny();
  return {
    name: name!,
    formula_id: formulaId!,
    configuration: configuration!,
    configuration_shape: configurationShapeOf(formula!),
    application_id: applicationId!,
  };
};

/**
 * Checks a PUT /reactors/{id} body (or the result of mergeReactorPatch) for the caller's tenant. `formula` is the
 * snapshot of the reactor's own formula: its status is not checked again (it gates creation only), its contract is.
 * A formula that no longer exists is a 409 (deleting a formula that has reactors is refused, so only a race gets here).
 */
export const validateReactorUpdateInput = (
  body: unknown,
  formula: ReactorFormulaSnapshot | null,
  application: ReactorApplicationSnapshot | null,
  tenantId: string,
): ValidReactorUpdate => {
  if (formula === null) throw conflict('The formula of this reactor no longer exists; the reactor cannot be updated.');
  const input = requireObject(body);
  const errors = new FieldErrorCollector();
  rejectUnknownProperties(input, UPDATE_REACTOR_PROPERTIES, '', errors, UPDATE_HINTS);
  const name = readName(input, errors);
  const configuration = readConfiguration(input.configuration, formula.configuration, errors);
  const applicationId = readApplication(input, application, tenantId, errors);
  errors.throwIfAny();
  return {
    name: name!,
    configuration: configuration!,
    configuration_shape: configurationShapeOf(formula),
    application_id: applicationId!,
  };
};

const requireObject = (body: unknown): JsonObject => {
  if (isJsonObject(body)) return body;
  throw validationError({ body: [`The request body must be a JSON object, not ${jsonTypeOf(body)}.`] });
};

const readName = (input: JsonObject, errors: FieldErrorCollector): string | undefined => {
  const name = readRequiredString(input, 'name', 'name', errors);
  if (name === undefined) return undefined;
  // A UTF-16 length within the limit is within it in code points too; only longer names need counting.
  const length = name.length <= MAX_REACTOR_NAME_LENGTH ? name.length : codePointLength(name);
  if (length <= MAX_REACTOR_NAME_LENGTH) return name;
  errors.add('name', `name must be at most ${MAX_REACTOR_NAME_LENGTH} characters, not ${length}.`);
  return undefined;
};

/**
 * Reads `{ id }` at `property`: the lower-case id; null when an optional reference is absent or null; undefined after
 * reporting a problem.
 */
const readReference = (
  input: JsonObject,
  property: 'formula' | 'application',
  errors: FieldErrorCollector,
  optional = false,
): string | null | undefined => {
  const reference = input[property];
  if (optional && (reference === undefined || reference === null)) return null;
  if (reference === undefined) {
    errors.add(property, `${property} is required.`);
    return undefined;
  }
  if (!isJsonObject(reference)) {
    errors.add(property, `${property} must be an object such as { "id": "…" }, not ${jsonTypeOf(reference)}.`);
    return undefined;
  }
  rejectUnknownProperties(reference, ['id'], property, errors);
  const id = reference.id;
  if (typeof id === 'string' && isUuid(id)) return id.toLowerCase();
  errors.add(`${property}.id`, id === undefined ? `${property}.id is required.` : `${property}.id must be a UUID.`);
  return undefined;
};

const readApplication = (
  input: JsonObject,
  application: ReactorApplicationSnapshot | null,
  tenantId: string,
  errors: FieldErrorCollector,
): string | null | undefined => {
  const id = readReference(input, 'application', errors, true);
  if (id === null || id === undefined) return id;
  assertSnapshotOf(application, id, 'application');
  const problem = applicationProblem(application, tenantId);
  if (problem) errors.add('application.id', problem);
  return problem ? undefined : id;
};

/** The handler read the snapshot of the id the body names; another one is a bug, not a bad request. */
const assertSnapshotOf = (snapshot: { id: string } | null, id: string, what: string): void => {
  if (snapshot !== null && snapshot.id.toLowerCase() !== id) {
    throw new Error(`The ${what} snapshot given to reactor validation is not the one the body names.`);
  }
};

/**
 * Reads the configuration against `contract` (null when the formula is unusable: then only its form is checked).
 * Every declared setting must be present with a value of its type, and nothing else. Messages name settings and JSON
 * types, never values; an undeclared name is quoted at most MAX_ELEMENT_NAME_LENGTH characters long.
 */
const readConfiguration = (
  value: unknown,
  contract: ReactorFormulaSnapshot['configuration'] | null,
  errors: FieldErrorCollector,
): ReactorConfiguration | undefined => {
  if (value === undefined) {
    errors.add('configuration', 'configuration is required (send {} when the formula declares no settings).');
    return undefined;
  }
  if (!isJsonObject(value)) {
    errors.add('configuration', `configuration must be an object of setting name → value, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  const names = Object.keys(value);
  // No formula declares more settings, so a longer configuration is refused before any setting is read.
  if (names.length > MAX_CONFIGURATION_ELEMENTS) {
    errors.add('configuration', `configuration must hold at most ${MAX_CONFIGURATION_ELEMENTS} settings, not ${names.length}.`);
    return undefined;
  }
  if (contract === null) return undefined;
  const declared = new Set(contract.map(({ name }) => name));
  let valid = true;
  for (const name of names) {
    if (declared.has(name)) continue;
    const path = `configuration.${bounded(name)}`;
    errors.add(path, `${path} is not a setting the formula declares.`);
    valid = false;
  }
  const entries: [string, ConfigurationValue][] = [];
  for (const { name, type } of contract) {
    const path = `configuration.${name}`;
    const setting = Object.hasOwn(value, name) ? value[name] : undefined;
    const problem = settingProblem(setting, type, path);
    if (problem) {
      errors.add(path, problem);
      valid = false;
    } else entries.push([name, setting as ConfigurationValue]);
  }
  return valid ? Object.fromEntries(entries) : undefined;
};

const settingProblem = (setting: unknown, type: FormulaValueType, path: string): string | null => {
  if (setting === undefined) return `${path} is required: the formula declares it as a ${type}.`;
  const fits = type === 'number' ? typeof setting === 'number' && Number.isFinite(setting) : typeof setting === type;
  if (!fits) return `${path} must be a ${type}, not ${jsonTypeOf(setting)}.`;
  if (typeof setting === 'string' && setting.length > MAX_CONFIGURATION_VALUE_LENGTH) {
    // The length of a secret is a hint about it: the message gives the limit only.
    if (codePointLength(setting) > MAX_CONFIGURATION_VALUE_LENGTH) {
      return `${path} must be at most ${MAX_CONFIGURATION_VALUE_LENGTH} characters.`;
    }
  }
  return null;
};

/** A request-supplied name cut to MAX_ELEMENT_NAME_LENGTH UTF-16 units (never inside a surrogate pair), marked by `…`. */
const bounded = (name: string): string => {
  if (name.length <= MAX_ELEMENT_NAME_LENGTH) return name;
  const end = /[\ud800-\udbff]/.test(name[MAX_ELEMENT_NAME_LENGTH - 1]) ? MAX_ELEMENT_NAME_LENGTH - 1 : MAX_ELEMENT_NAME_LENGTH;
  return `${name.slice(0, end)}…`;
};
