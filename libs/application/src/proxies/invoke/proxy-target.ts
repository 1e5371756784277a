// Who may invoke what: the proxy an SVC-PROXY-KEY names (or the destination an SVC-PROXY-URL gives), and whether the
// caller, with or without an API key, may send through it. A key that names no proxy the caller can use answers as
// one that is missing, so an invocation never tells whether another tenant's or an API-key-only proxy exists.
import { checkDestination, DomainError, validationError, type DestinationHosts, type ProxyRecord, type ProxySecrets } from '@vault/domain';
import type { ProxyReadModel } from '../../ports/read-models';
import type { ApiKeys } from '../../ports/system';
import type { TenantKeys, TokenCrypto } from '../../ports/token-crypto';
import type { Caller } from '../../shared/use-case';
import { openProxySecrets } from '../sealing/proxy-secrets';
import { destinationUrl } from './proxy-destination-url';

export interface ProxyTarget {
  /** null: an ephemeral invocation (SVC-PROXY-URL). */
  proxy: ProxyRecord | null;
  secrets: ProxySecrets | null;
  tenantId: string;
  url: URL;
}

export interface TargetRequest {
  proxyKey: string | null;
  proxyUrl: string | null;
  path: string;
  query: string;
}

export const NO_USABLE_PROXY =
  'The SVC-API-KEY header is missing or not valid, or SVC-PROXY-KEY names no proxy that may be invoked without one.';

const unauthenticated = (message = NO_USABLE_PROXY) => new DomainError('unauthenticated', message);

/** Proxies whose opened secrets are kept in memory, the most recently invoked ones. */
const OPENED_SECRETS_LIMIT = 1_000;

export class ProxyTargets {
  /**
   * Opened secrets by proxy id, each with the sealed envelope it came from: a change of the proxy seals anew (a new
   * IV), so a kept entry is used only for the exact version the read model holds now. Only ever reached through the
   * read model's document: a deleted proxy's (its document gone before its delete answers) is never used again.
   */
  private readonly opened = new Map<string, { iv: string; secrets: ProxySecrets }>();

  constructor(
    private readonly proxies: ProxyReadModel,
    private readonly crypto: TokenCrypto,
    private readonly keys: ApiKeys,
    private readonly hosts: DestinationHosts,
    private readonly tenantKeys: Pick<TenantKeys, 'isTenantKeyDestroyed'>,
  ) {}

  async resolve(caller: Caller | null, request: TargetRequest): Promise<ProxyTarget> {
    if (request.proxyKey !== null && request.proxyUrl !== null) {
      throw validationError({ 'SVC-PROXY-URL': ['Give SVC-PROXY-KEY or SVC-PROXY-URL, not both.'] });
    }
    if (caller !== null) assertMayInvoke(caller);
    if (request.proxyKey !== null) return this.preconfigured(caller, request);
    if (request.proxyUrl === null) {
      throw validationError({ 'SVC-PROXY-KEY': ['SVC-PROXY-KEY (or the svc-proxy-key query parameter) or SVC-PROXY-URL is required.'] });
    }
    if (caller === null) throw unauthenticated('The SVC-API-KEY header is missing: an ephemeral proxy (SVC-PROXY-URL) needs the key of a private application.');
    const destination = checkDestination(request.proxyUrl, 'SVC-PROXY-URL', this.hosts);
    if ('problem' in destination) throw validationError({ 'SVC-PROXY-URL': [destination.problem] });
    return { proxy: null, secrets: null, tenantId: caller.principal.tenantId, url: destinationUrl(destination.url.href, request.path, request.query) };
  }

  private async preconfigured(caller: Caller | null, request: TargetRequest): Promise<ProxyTarget> {
    const key = request.proxyKey!;
    const proxy = key.length > 0 && key.length <= 200 ? await this.proxies.findByKeyHash(this.keys.hash(key)) : null;
    const usable = proxy !== null && (caller === null ? !proxy.require_auth : proxy.tenant_id === caller.principal.tenantId);
    if (!usable) {
      if (caller === null) throw unauthenticated();
      throw new DomainError('not_found', 'Proxy was not found.', { 'SVC-PROXY-KEY': ['SVC-PROXY-KEY names no proxy of this tenant.'] });
    }
    let secrets: ProxySecrets;
    try {
      secrets = await this.secretsOf(proxy, caller);
    } catch (error) {
      // Deleted a moment ago (its key shredded): as missing.
      if (error instanceof DomainError && error.kind === 'not_found' && caller === null) throw unauthenticated();
      throw error;
    }
    // The operator may have taken the host off the list since the proxy was made.
    const destination = checkDestination(secrets.destination_url, 'destination_url', this.hosts);
    if ('problem' in destination) {
      throw new DomainError('bad_gateway', "The proxy's destination is no longer on VAULT_PROXY_ALLOWED_HOSTS.");
    }
    return { proxy, secrets, tenantId: proxy.tenant_id, url: destinationUrl(destination.url.href, request.path, request.query) };
  }

  /** The proxy's secrets: opened once per sealed version, while its tenant's key stands. */
  private async secretsOf(proxy: ProxyRecord, caller: Caller | null): Promise<ProxySecrets> {
    const kept = this.opened.get(proxy.id);
    if (kept !== undefined && kept.iv === proxy.sealed.iv) {
      // A caller with an API key was authenticated against a standing tenant key this request; an anonymous one was not.
      if (caller === null && this.tenantKeys.isTenantKeyDestroyed(proxy.tenant_id)) throw unauthenticated();
      this.opened.delete(proxy.id);
      this.opened.set(proxy.id, kept);
      return kept.secrets;
    }
    // Shared by every invocation from now on: frozen, so that no invocation can change what the next one gets.
    const secrets = deepFreeze(await openProxySecrets(this.crypto, proxy));
    this.opened.delete(proxy.id);
    if (this.opened.size >= OPENED_SECRETS_LIMIT) this.opened.delete(this.opened.keys().next().value!);
    this.opened.set(proxy.id, { iv: proxy.sealed.iv, secrets });
    return secrets;
  }
}

/** An invocation with an API key is a private application's, holding token:use (what a proxy's detokenization needs). */
const assertMayInvoke = (caller: Caller): void => {
  if (caller.principal.type !== 'private') {
    throw new DomainError('forbidden', `Proxies are invoked with the key of a private application, not a ${caller.principal.type} one.`);
  }
  if (!caller.principal.permissions.has('token:use')) throw new DomainError('forbidden', 'The application lacks the token:use permission.');
};

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
};
