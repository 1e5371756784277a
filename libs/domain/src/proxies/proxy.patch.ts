// PATCH /proxies/{id} (RFC 7396 merge patch) resolved into the body of a PUT, and what a change may do without
// proxy:read. The application layer opens the current proxy's secrets, merges here, then validates the result as a PUT.
import { validationError } from '../shared/errors';
import { isJsonObject, jsonTypeOf } from '../shared/json-shape';
import type { ProxyConfiguration, ProxyTransform, ValidProxy } from './proxy.types';

/** A proxy as a PUT body restates it (its secrets opened). */
export interface ProxyBody {
  name: string;
  destination_url: string;
  require_auth: boolean;
  application: { id: string } | null;
  configuration: ProxyConfiguration;
  request_transforms: ProxyTransform[];
  response_transforms: ProxyTransform[];
}

export const proxyBodyOf = (proxy: ValidProxy): ProxyBody => ({
  name: proxy.name,
  destination_url: proxy.destination_url,
  require_auth: proxy.require_auth,
  application: proxy.application_id === null ? null : { id: proxy.application_id },
  configuration: proxy.configuration,
  request_transforms: proxy.request_transforms,
  response_transforms: proxy.response_transforms,
});

/** The properties of a patch that change what runs on the way or what is kept secret. */
const RUN_PROPERTIES = ['request_transforms', 'response_transforms', 'request_transform', 'response_transform', 'require_auth', 'configuration'];

/**
 * Applies `patch` to `current`: an absent property keeps its value, null removes it (a removed `name` is then reported
 * as required; removed transforms, configuration or application are none), `configuration` and `application` merge one
 * level (a null setting is removed), anything else replaces the value. The older single-transform form replaces the
 * list of its direction. Properties a PUT does not accept are kept for validation to report.
 */
export const mergeProxyPatch = (current: ProxyBody, patch: unknown): Record<string, unknown> => {
  if (!isJsonObject(patch)) throw validationError({ body: [`The merge patch must be a JSON object, not ${jsonTypeOf(patch)}.`] });
  const merged = new Map<string, unknown>(Object.entries(current));
  if (current.application === null) merged.delete('application');
  for (const property of Object.keys(patch)) {
    const value = patch[property];
    // The older single form replaces the list of its direction, unless the patch gives that list itself.
    if ((property === 'request_transform' || property === 'response_transform') && !Object.hasOwn(patch, `${property}s`)) merged.delete(`${property}s`);
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

/**
 * What a change asks for, for assertProxyChangeAllowed: read from the request alone, never from how the stored proxy
 * compares with it, so that whether a change is refused tells a caller nothing it may not read. `patch`: the merge
 * patch, or null for a PUT (which restates the destination, whatever it says).
 */
export const proxyChange = (patch: Record<string, unknown> | null) => {
  if (patch === null) return { destinationTouched: true, runTouched: true, configurationCleared: true };
  return {
    destinationTouched: Object.hasOwn(patch, 'destination_url'),
    runTouched: RUN_PROPERTIES.some((property) => Object.hasOwn(patch, property)),
    configurationCleared: patch.configuration === null,
  };
};
