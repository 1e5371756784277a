// Webhook signing: random signing secrets, HMAC-SHA256 signatures, and the stable UUID a receiver knows an event by.
import type { WebhookCrypto } from '@vault/application';
import { createHash, createHmac, randomBytes } from 'node:crypto';

export class NodeWebhookCrypto implements WebhookCrypto {
  newSigningSecret(): string {
    return `whsec_${randomBytes(32).toString('base64url')}`;
  }

  sign(secret: string, text: string): string {
    return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
  }

  /**
   * A name-based UUID (version 5 layout, SHA-256 truncated) of the event's stream and revision: the same for every
   * delivery of the event, from any process; it gives away neither the tenant's ids nor the log's size.
   */
  eventId(streamId: string, revision: bigint): string {
    const hash = createHash('sha256').update(`vault-webhook-event\0${streamId}\0${revision}`, 'utf8').digest();
    hash[6] = (hash[6] & 0x0f) | 0x50;
    hash[8] = (hash[8] & 0x3f) | 0x80;
    const hex = hash.subarray(0, 16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  }
}
