// A webhook's signing secret is sealed here only, under the webhook's own data key: destroyed by the webhook's delete,
// and with the tenant's key. Opened again only to sign deliveries.
import { DataKeyUnavailableError, notFound, type EncryptedData, type WebhookRecord } from '@vault/domain';
import type { TokenCrypto } from '../../ports/token-crypto';

/** The key-store id of the key that seals a webhook's secret: never a token's (UUIDs), a reactor's or a proxy's. */
export const webhookKeyId = (webhookId: string): string => `webhook:${webhookId}`;

const PURPOSE = 'webhook_secret';

export const sealWebhookSecret = (crypto: TokenCrypto, tenantId: string, id: string, secret: string): Promise<EncryptedData> =>
  crypto.encrypt(tenantId, webhookKeyId(id), secret, PURPOSE);

/** The signing secret; a key already shredded (the webhook or its tenant deleted) means the webhook is gone: 404. */
export async function openWebhookSecret(crypto: TokenCrypto, webhook: Pick<WebhookRecord, 'id' | 'tenant_id' | 'sealed_secret'>): Promise<string> {
  try {
    return await crypto.decrypt(webhook.tenant_id, webhookKeyId(webhook.id), webhook.sealed_secret, PURPOSE);
  } catch (error) {
    if (error instanceof DataKeyUnavailableError) throw notFound('Webhook');
    throw error;
  }
}
