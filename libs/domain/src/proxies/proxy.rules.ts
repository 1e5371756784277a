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
  "Giving a proxy's destination_url (a PUT gives it) needs proxy:read as well: a change would send the proxy's hidden configuration elsewhere. Without it, PATCH the other fields.";

export const KEPT_PROXY_SECRETS_NEED_READ_MESSAGE =
  "Changing a proxy's transforms, configuration or require_auth needs proxy:read, unless the same patch removes the whole configuration (\"configuration\": null): its values are secrets the change could expose.";

/**
 * A change keeps the proxy's secrets where they were put. Without proxy:read, a caller may not touch the destination (a
 * PUT restates it; 403 naming destination_url), nor what runs on the way (transforms, require_auth, configuration)
 * unless the same patch removes the whole configuration (403 naming configuration): either would let it send or show
 * secrets it cannot read. Decided on the request alone (proxyChange), so a refusal never tells what is stored.
 */
export const assertProxyChangeAllowed = (change: {
  canRead: boolean;
  destinationTouched: boolean;
  runTouched: boolean;
  configurationCleared: boolean;
}): void => {
  if (change.canRead) return;
  if (change.destinationTouched) throw new DomainError('forbidden', DESTINATION_NEEDS_READ_MESSAGE, { destination_url: [DESTINATION_NEEDS_READ_MESSAGE] });
  if (change.runTouched && !change.configurationCleared) {
    throw new DomainError('forbidden', KEPT_PROXY_SECRETS_NEED_READ_MESSAGE, { configuration: [KEPT_PROXY_SECRETS_NEED_READ_MESSAGE] });
  }
};
