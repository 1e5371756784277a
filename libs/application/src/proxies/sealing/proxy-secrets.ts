// A proxy's secrets (its key, destination, configuration and transforms) are sealed here only: together, under the
// proxy's own data key, before the decider records anything. They are opened again only to answer proxy:read holders,
// to merge a PATCH and to invoke the proxy.
import { DataKeyUnavailableError, notFound, type ProxyContent, type ProxyRecord, type ProxySecrets, type ValidProxy } from '@vault/domain';
import type { TokenCrypto } from '../../ports/token-crypto';

/** The key-store id of the key that seals a proxy's secrets: never a token's (UUIDs), a reactor's or a formula's. */
export const proxyKeyId = (proxyId: string): string => `proxy:${proxyId}`;

const PURPOSE = 'proxy_secrets';

/** The validated proxy with its key, sealed: the data key is made by the first seal and destroyed by the proxy's delete. */
export const sealProxy = async (crypto: TokenCrypto, tenantId: string, id: string, valid: ValidProxy, key: string, keyHash: string): Promise<ProxyContent> => {
  const secrets: ProxySecrets = {
    key,
    destination_url: valid.destination_url,
    configuration: valid.configuration,
    request_transforms: valid.request_transforms,
    response_transforms: valid.response_transforms,
  };
  return {
    name: valid.name,
    require_auth: valid.require_auth,
    application_id: valid.application_id,
    key_hash: keyHash,
    sealed: await crypto.encrypt(tenantId, proxyKeyId(id), JSON.stringify(secrets), PURPOSE),
  };
};

/** Opens a proxy's secrets; a key already shredded (a delete in flight, the tenant gone) means the proxy is gone: 404. */
export async function openProxySecrets(crypto: TokenCrypto, proxy: ProxyRecord): Promise<ProxySecrets> {
  let plaintext: string;
  try {
    plaintext = await crypto.decrypt(proxy.tenant_id, proxyKeyId(proxy.id), proxy.sealed, PURPOSE);
  } catch (error) {
    if (error instanceof DataKeyUnavailableError) throw notFound('Proxy');
    throw error;
  }
  return JSON.parse(plaintext) as ProxySecrets;
}

/** The proxy as validation saw it, from its record and opened secrets: what a PATCH merges into. */
export const validProxyOf = (proxy: ProxyRecord, secrets: ProxySecrets): ValidProxy => ({
  name: proxy.name,
  destination_url: secrets.destination_url,
  require_auth: proxy.require_auth,
  application_id: proxy.application_id,
  configuration: secrets.configuration,
  request_transforms: secrets.request_transforms,
  response_transforms: secrets.response_transforms,
});
