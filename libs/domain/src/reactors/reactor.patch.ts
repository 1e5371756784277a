// PATCH /reactors/{id} (RFC 7396 merge patch) resolved into the body of a PUT: the application layer opens the current
// configuration, merges the patch here, then validates the result with validateReactorUpdateInput and decides an
// UpdateReactor, so a patch obeys exactly the rules of a PUT.
import { DomainError, validationError } from '../shared/errors';
import { isJsonObject, jsonTypeOf } from '../shared/json-shape';
import type { ReactorRecord } from './reactor.state';
import type { ReactorConfiguration } from './reactor.types';

/** A reactor as a PUT body would restate it, with its configuration opened. */
export interface ReactorBody {
  name: string;
  configuration: ReactorConfiguration;
  application: { id: string } | null;
}

export const reactorBodyOf = (reactor: ReactorRecord, configuration: ReactorConfiguration): ReactorBody => ({
  name: reactor.name,
  configuration,
  application: reactor.application_id === null ? null : { id: reactor.application_id },
});

/**
 * Applies `patch` to `current`: an absent property keeps its value, null removes it (a removed `name` or
 * `configuration` is then reported as required, a removed `application` is none), an object merges into `configuration`
 * (null removes that setting) and into `application`, anything else replaces the value. Properties a PUT does not
 * accept (`formula`, unknown ones) are kept for validation to report. Merges one level only, so a deeply nested patch
 * costs no recursion.
 */
export const mergeReactorPatch = (current: ReactorBody, patch: unknown): Record<string, unknown> => {
  if (!isJsonObject(patch)) {
    throw validationError({ body: [`The merge patch must be a JSON object, not ${jsonTypeOf(patch)}.`] });
  }
  const merged = new Map<string, unknown>(Object.entries(current));
  if (current.application === null) merged.delete('application');
  for (const property of Object.keys(patch)) {
    const value = patch[property];
    const target = merged.get(property);
    if (value === null) merged.delete(property);
    else if ((property === 'configuration' || property === 'application') && isJsonObject(value) && isJsonObject(target)) {
      merged.set(property, mergeOneLevel(target, value));
    } else merged.set(property, value);
  }
  return Object.fromEntries(merged);
};

const mergeOneLevel = (target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> => {
  const merged = new Map(Object.entries(target));
  for (const key of Object.keys(patch)) {
    if (patch[key] === null) merged.delete(key);
    else merged.set(key, patch[key]);
  }
  return Object.fromEntries(merged);
};

export const KEPT_SECRETS_NEED_READ_MESSAGE =
  "Changing a reactor's configuration while keeping settings the request does not give anew needs reactor:read (they may be secrets the change would send elsewhere); give every setting, or ask a key that holds reactor:read.";

/**
 * A configuration change keeps its secrets where they were put: a patch that changes some settings and keeps others
 * it does not restate (an endpoint moved, the API key kept) could send the hidden ones anywhere, so it needs
 * reactor:read, the permission that shows them. 403 naming `configuration` otherwise. A PUT restates every setting.
 */
export const assertKeptSettingsReadable = (current: ReactorBody, patch: unknown, canRead: boolean): void => {
  if (canRead || !isJsonObject(patch) || !isJsonObject(patch.configuration)) return;
  const given = Object.keys(patch.configuration);
  if (given.length === 0) return;
  const kept = Object.keys(current.configuration).filter((name) => !given.includes(name));
  if (kept.length === 0) return;
  throw new DomainError('forbidden', KEPT_SECRETS_NEED_READ_MESSAGE, { configuration: [KEPT_SECRETS_NEED_READ_MESSAGE] });
};
