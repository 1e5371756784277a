// The rules about what a proxy refers to and who may change what of it, asked by validation and by decide.
import { DomainError } from '../shared/errors';
import type { ProxyApplicationSnapshot } from './proxy.types';

/** The message for `application.id` when the application cannot be a proxy's of `tenantId`, else null. */
export const proxyApplicationProblem = (application: ProxyApplicationSnapshot | null, tenantId: string): string | null => {
  if (application === null || application.deleted === true || application.tenant_id !== tenantId) {
    return 'application.id names no application of this tenant.';
  }
  if (application.type !== 'private') return `application.id must name a private application, not a ${application.type} one.`;
  return null;
};

export const DESTINATION_NEEDS_READ_MESSAGE =
  "Changing a proxy's destination_url needs proxy:read as well: the change would send the proxy's hidden configuration elsewhere.";

export const KEPT_PROXY_SECRETS_NEED_READ_MESSAGE =
  "Changing a proxy's transforms, configuration or require_auth while keeping configuration values the request does not give anew needs proxy:read (they are secrets the change could expose); give the whole configuration, or use a key that holds proxy:read.";

/**
 * A change keeps the proxy's secrets where they were put. Without proxy:read, a caller may not move the destination
 * (403 naming destination_url), nor change what runs on the way (transforms, require_auth) or part of the configuration
 * while configuration values it did not give anew stay (403 naming configuration): either would let it send or show
 * secrets it cannot read. A PUT states the whole configuration, so only its destination is asked about (proxyChange).
 */
export const assertProxyChangeAllowed = (change: {
  canRead: boolean;
  destinationChanged: boolean;
  runChanged: boolean;
  keptSettings: readonly string[];
}): void => {
  if (change.canRead) return;
  if (change.destinationChanged) throw new DomainError('forbidden', DESTINATION_NEEDS_READ_MESSAGE, { destination_url: [DESTINATION_NEEDS_READ_MESSAGE] });
  if (change.runChanged && change.keptSettings.length > 0) {
    throw new DomainError('forbidden', KEPT_PROXY_SECRETS_NEED_READ_MESSAGE, { configuration: [KEPT_PROXY_SECRETS_NEED_READ_MESSAGE] });
  }
};
