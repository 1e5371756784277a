// Validation of a proxy create/update body: one 400 listing every violation, keyed by field path. Runs on the
// plaintext, before the handler seals the secrets; no message quotes a configuration value, code or destination.
import { FieldErrorCollector, validationError } from '../shared/errors';
import { codePointLength, isJsonObject, jsonTypeOf, readRequiredString, rejectUnknownProperties, type JsonObject } from '../shared/json-shape';
import { isUuid } from '../shared/uuid';
import { checkDestination, type DestinationHosts } from './proxy-destination';
import { readTransforms } from './proxy-transforms.validate';
import { proxyApplicationProblem } from './proxy.rules';
import type { ProxyApplicationSnapshot, ProxyConfiguration, ValidProxy } from './proxy.types';

/** In Unicode code points. */
export const MAX_PROXY_NAME_LENGTH = 200;
export const MAX_PROXY_CONFIGURATION_ENTRIES = 100;
export const MAX_PROXY_CONFIGURATION_NAME_LENGTH = 200;
export const MAX_PROXY_CONFIGURATION_VALUE_LENGTH = 10_000;

export const PROXY_BODY_PROPERTIES = [
  'name',
  'destination_url',
  'request_transforms',
  'response_transforms',
  'request_transform',
  'response_transform',
  'application',
  'configuration',
  'require_auth',
] as const;

export interface ProxyValidationContext {
  tenantId: string;
  /** The snapshot of `proxyApplicationId(body)` (null when that is null, or when no such application exists). */
  application: ProxyApplicationSnapshot | null;
  hosts: DestinationHosts;
}

/** The application a body names, lower-case, so the handler knows which snapshot to read; null: none or not a UUID. */
export const proxyApplicationId = (body: unknown): string | null => {
  const reference = isJsonObject(body) ? body.application : undefined;
  const id = isJsonObject(reference) ? reference.id : undefined;
  return typeof id === 'string' && isUuid(id) ? id.toLowerCase() : null;
};

/** Checks a POST /proxies or PUT /proxies/{id} body (or a merge-patched proxy). Throws one 400 listing everything. */
export const validateProxyInput = (body: unknown, context: ProxyValidationContext): ValidProxy => {
  if (!isJsonObject(body)) throw validationError({ body: [`The body must be a JSON object, not ${jsonTypeOf(body)}.`] });
  const errors = new FieldErrorCollector();
  rejectUnknownProperties(body, PROXY_BODY_PROPERTIES, '', errors, { key: "A proxy's key is generated and never changes." });
  const name = readName(body, errors);
  const destination = checkDestination(body.destination_url, 'destination_url', context.hosts);
  if ('problem' in destination) errors.add('destination_url', destination.problem);
  const requireAuth = readRequireAuth(body.require_auth, errors);
  const configuration = readConfiguration(body.configuration, errors);
  const request = readTransforms(body, 'request_transforms', 'request_transform', errors);
  const response = readTransforms(body, 'response_transforms', 'response_transform', errors);
  const applicationId = readApplication(body, context, errors);
  const tokenizes = [...(request ?? []), ...(response ?? [])].some((transform) => transform.type === 'tokenize');
  if (tokenizes && applicationId === null) {
    errors.add('application', 'application is required when a transform tokenizes: the tokens are made as that private application, under its rules.');
  }
  errors.throwIfAny();
  return {
    name: name!,
    destination_url: 'url' in destination ? destination.url.href : '',
    require_auth: requireAuth!,
    application_id: applicationId ?? null,
    configuration: configuration!,
    request_transforms: request!,
    response_transforms: response!,
  };
};

const readName = (body: JsonObject, errors: FieldErrorCollector): string | undefined => {
  const name = readRequiredString(body, 'name', 'name', errors);
  if (name !== undefined && codePointLength(name) > MAX_PROXY_NAME_LENGTH) {
    errors.add('name', `name must be at most ${MAX_PROXY_NAME_LENGTH} characters long.`);
    return undefined;
  }
  return name;
};

const readRequireAuth = (value: unknown, errors: FieldErrorCollector): boolean | undefined => {
  if (value === undefined || value === null) return true;
  if (typeof value !== 'boolean') {
    errors.add('require_auth', `require_auth must be a boolean, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  return value;
};

/** Setting name → string; absent or null: none. Messages name settings and JSON types, never a value. */
const readConfiguration = (value: unknown, errors: FieldErrorCollector): ProxyConfiguration | undefined => {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) {
    errors.add('configuration', `configuration must be an object of string values, not ${jsonTypeOf(value)}.`);
    return undefined;
  }
  const names = Object.keys(value);
  if (names.length > MAX_PROXY_CONFIGURATION_ENTRIES) {
    errors.add('configuration', `configuration must hold at most ${MAX_PROXY_CONFIGURATION_ENTRIES} settings, not ${names.length}.`);
    return undefined;
  }
  let valid = true;
  const entries: Array<[string, string]> = [];
  for (const name of names) {
    const item = value[name];
    // A name too long to be one is cut in its path, marked so.
    const path = codePointLength(name) > MAX_PROXY_CONFIGURATION_NAME_LENGTH ? `configuration.${[...name].slice(0, 100).join('')}…` : `configuration.${name}`;
    if (name.length === 0 || codePointLength(name) > MAX_PROXY_CONFIGURATION_NAME_LENGTH) {
      errors.add(path, `configuration names must be 1 to ${MAX_PROXY_CONFIGURATION_NAME_LENGTH} characters long.`);
      valid = false;
    } else if (typeof item !== 'string') {
      errors.add(path, `${path} must be a string, not ${jsonTypeOf(item)}.`);
      valid = false;
    } else if (item.length > MAX_PROXY_CONFIGURATION_VALUE_LENGTH && codePointLength(item) > MAX_PROXY_CONFIGURATION_VALUE_LENGTH) {
      errors.add(path, `${path} must be at most ${MAX_PROXY_CONFIGURATION_VALUE_LENGTH} characters long.`);
      valid = false;
    } else entries.push([name, item]);
  }
  // fromEntries defines properties: a setting named __proto__ stays a setting.
  return valid ? Object.fromEntries(entries) : undefined;
};

/** The application's id, null for none, undefined when the reference is wrong (reported). */
const readApplication = (body: JsonObject, context: ProxyValidationContext, errors: FieldErrorCollector): string | null | undefined => {
  const reference = body.application;
  if (reference === undefined || reference === null) return null;
  if (!isJsonObject(reference)) {
    errors.add('application', `application must be an object { "id": "…" } or null, not ${jsonTypeOf(reference)}.`);
    return undefined;
  }
  rejectUnknownProperties(reference, ['id'], 'application', errors);
  const id = reference.id;
  if (typeof id !== 'string' || !isUuid(id)) {
    errors.add('application.id', 'application.id must be a UUID.');
    return undefined;
  }
  const applicationId = id.toLowerCase();
  if (context.application !== null && context.application.id !== applicationId) throw new Error('validateProxyInput was given the snapshot of another application.');
  const problem = proxyApplicationProblem(context.application, context.tenantId);
  if (problem) {
    errors.add('application.id', problem);
    return undefined;
  }
  return applicationId;
};
