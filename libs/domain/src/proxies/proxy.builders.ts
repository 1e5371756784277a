// Test data builders for proxy specs: contexts, application snapshots, allowed hosts, bodies, sealed content, events.
import type { CommandContext } from '../shared/events';
import type { DestinationHosts } from './proxy-destination';
import type { ProxyCreated, ProxyDeleted, ProxyUpdated } from './proxy.events';
import type { ProxyApplicationSnapshot, ProxyContent, ValidProxy } from './proxy.types';

export const TENANT = '4eac7000-0000-4000-8000-000000000001';
export const OTHER_TENANT = '4eac7000-0000-4000-8000-000000000002';
export const APP = 'a7a7a7a7-0000-4000-8000-000000000001';
export const OTHER_APP = 'b2b2b2b2-0000-4000-8000-000000000002';
export const PROXY_ID = 'd0d0d0d0-0000-4000-8000-000000000001';
export const PRIVATE_APP_ID = 'a7a7a7a7-0000-4000-8000-0000000000a1';
export const CREATED_AT = new Date('2024-05-01T10:00:00.000Z');
export const LATER = new Date('2024-05-02T12:30:00.000Z');

export const DESTINATION = 'https://api.example.com/v1/charges';
export const KEY_HASH = 'a'.repeat(64);

export const anApp = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: TENANT,
  actor: { type: 'application', id: APP },
  now: LATER,
  correlationId: 'corr-1',
  ...overrides,
});

export const anApplication = (overrides: Partial<ProxyApplicationSnapshot> = {}): ProxyApplicationSnapshot => ({
  id: PRIVATE_APP_ID,
  tenant_id: TENANT,
  type: 'private',
  ...overrides,
});

/**
 * The operator's list as the adapter answers it, reduced to what the domain asks: `host` allows that host on its
 * scheme's default port, `host:port` that port only.
 */
export const hostsOf = (...entries: string[]): DestinationHosts => ({
  isEmpty: entries.length === 0,
  allows: (url) =>
    entries.some((entry) => {
      const [hostname, port = ''] = entry.split(':');
      return url.hostname === hostname && url.port === port;
    }),
});

export const ALLOWED_HOSTS = hostsOf('api.example.com', 'localhost:8080');

/** A valid create body as a client sends it: a masked response, no tokenization, so no application needed. */
export const aProxyBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Charge card',
  destination_url: DESTINATION,
  configuration: { api_key: 'sk_live_5ecret' },
  request_transforms: [{ type: 'code', code: 'return { body: args.body, headers: args.headers };' }],
  response_transforms: [{ type: 'mask', fields: ['$.card.number'] }],
  ...overrides,
});

/** A proxy after validation, as proxyChange compares two of them. */
export const aValidProxy = (overrides: Partial<ValidProxy> = {}): ValidProxy => ({
  name: 'Charge card',
  destination_url: DESTINATION,
  require_auth: true,
  application_id: null,
  configuration: { api_key: 'sk_live_5ecret', region: 'eu' },
  request_transforms: [{ type: 'code', code: 'return args;' }],
  response_transforms: [],
  ...overrides,
});

/** Content as the handler builds it: the key hashed, the secrets sealed under the proxy's own data key. */
export const aContent = (overrides: Partial<ProxyContent> = {}): ProxyContent => ({
  name: 'Charge card',
  require_auth: true,
  application_id: null,
  key_hash: KEY_HASH,
  sealed: { v: 1, alg: 'AES-256-GCM', key_ref: PROXY_ID, iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' },
  ...overrides,
});

/** A recorded creation, as a history for `given`. */
export const proxyCreated = (content: Partial<ProxyContent> = {}, owner: { tenantId?: string } = {}): ProxyCreated => ({
  type: 'ProxyCreated',
  data: {
    id: PROXY_ID,
    tenant_id: owner.tenantId ?? TENANT,
    ...aContent(content),
    created_by: APP,
    created_at: CREATED_AT.toISOString(),
  },
});

export const proxyUpdated = (content: Partial<ProxyContent> = {}): ProxyUpdated => ({
  type: 'ProxyUpdated',
  data: { id: PROXY_ID, tenant_id: TENANT, ...aContent(content), modified_by: OTHER_APP, modified_at: LATER.toISOString() },
});

export const proxyDeleted = (): ProxyDeleted => ({
  type: 'ProxyDeleted',
  data: { id: PROXY_ID, tenant_id: TENANT, deleted_by: APP, deleted_at: LATER.toISOString() },
});
