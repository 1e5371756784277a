// PATCH /reactors/{id} (RFC 7396 merge patch) resolved into the body of a PUT: the application layer opens the current
// configuration, merges the patch here, then validates the result with validateReactorUpdateInput and decides an
// UpdateReactor, so a patch obeys exactly the rules of a PUT.
import { validationError } from '../shared/errors';
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
