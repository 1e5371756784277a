// A reactor's configuration (upstream API keys, routinely) is sealed here only: under the reactor's own data key, with
// its own purpose, before the decider records anything. The decider records the sealed form and its shape; the
// configuration is opened again only to answer reactor:read holders, to merge a PATCH and to run the code.
import { DataKeyUnavailableError, notFound, type ReactorConfiguration, type ReactorContent, type ReactorRecord, type ValidReactorUpdate } from '@vault/domain';
import type { TokenCrypto } from '../../ports/token-crypto';

/**
 * The key-store id of the key that seals a reactor's configuration. Token ids are UUIDs, so `reactor:<uuid>` is never
 * a token's key, and destroying one never touches the other.
 */
export const reactorKeyId = (reactorId: string): string => `reactor:${reactorId}`;

/**
 * The validated configuration (its JSON text) sealed: the key is created on the first seal and reused by updates, and
 * the key shredder destroys it when the reactor is deleted.
 */
export const sealConfiguration = async (crypto: TokenCrypto, tenantId: string, id: string, valid: ValidReactorUpdate): Promise<ReactorContent> => ({
  name: valid.name,
  configuration: await crypto.encrypt(tenantId, reactorKeyId(id), JSON.stringify(valid.configuration), 'reactor_configuration'),
  configuration_shape: valid.configuration_shape,
  application_id: valid.application_id,
});

/** Opens a reactor's configuration; a key already shredded (a delete in flight) means the reactor is gone: 404. */
export async function openConfiguration(crypto: TokenCrypto, reactor: ReactorRecord): Promise<ReactorConfiguration> {
  let plaintext: string;
  try {
    plaintext = await crypto.decrypt(reactor.tenant_id, reactorKeyId(reactor.id), reactor.configuration, 'reactor_configuration');
  } catch (error) {
    if (error instanceof DataKeyUnavailableError) throw notFound('Reactor');
    throw error;
  }
  return JSON.parse(plaintext) as ReactorConfiguration;
}
