// The webhook check of the leak property fails on each thing a delivery must never hold or be.
import { createHmac } from 'node:crypto';
import type { LocalHttpServer, ReceivedRequest } from '../../support/local-http-server';
import { newVersion } from './model';
import { checkWebhookDeliveries, type WatchedTenant, type WebhookWorld } from './webhooks';

const TENANT = '4eac7000-0000-4000-8000-000000000001';
const EVENT = '5eac7000-0000-4000-8000-000000000001';
const SECRET = 'whsec_0123456789abcdef';
const FINGERPRINT = 'FpQ2x9Kc4kZbH7sW1nJ6mYtR3vA8eD5gU';
const card = { ...newVersion('card_number', '4242424242424242', []), masks: new Set(['XXXXXXXXXXXX4242']) };
const world = {
  tokens: [{ fingerprint: FINGERPRINT, versions: [card] }],
  webhookSecrets: () => ({ keys: ['key_prv_0123456789'], signingSecrets: [SECRET], configuration: ['use:base64'], metadata: ['TOE'] }),
} as unknown as WebhookWorld;
const tenant: WatchedTenant = { tenantId: TENANT, managementKey: 'k', webhookId: EVENT, signingSecret: SECRET, path: '/hooks/1', world, closed: false };

const delivery = (body: Record<string, unknown>, headers: Record<string, string> = {}, secret = SECRET): ReceivedRequest => {
  const text = JSON.stringify(body);
  const signature = createHmac('sha256', secret).update(`1700000000.${text}`).digest('hex');
  return {
    method: 'POST',
    path: '/hooks/1',
    body: text,
    headers: { 'svc-webhook-id': String(body.id), 'svc-webhook-event': String(body.type), 'svc-webhook-signature': `t=1700000000,v1=${signature}`, host: '127.0.0.1:42424', ...headers },
  };
};
const rename = { id: EVENT, type: 'tenant.updated', tenant_id: TENANT, created_at: '2024-05-01T10:00:00.000Z', data: { id: TENANT, actor_id: 'cli' } };
const noRequests = { rename: async () => undefined, remove: async () => undefined };
const check = (...received: ReceivedRequest[]) => checkWebhookDeliveries({ received } as unknown as LocalHttpServer, [{ ...tenant }], noRequests, 100);

describe('the webhook check of the leak property', () => {
  it('passes a delivery that is only ids, types and times, signed', async () => {
    await expect(check(delivery(rename), delivery({ ...rename, type: 'token.created', data: { id: EVENT, type: 'card_number', actor_id: EVENT } }))).resolves.toMatch(/2 deliveries checked/);
  });

  it.each<[string, ReceivedRequest[], RegExp]>([
    ['a key more in the body', [delivery({ ...rename, name: 'x' })], /keys/],
    ['a field more in data', [delivery({ ...rename, data: { ...rename.data, metadata: {} } })], /data is/],
    ['token data as the type', [delivery(rename), delivery({ ...rename, type: 'token.created', data: { id: EVENT, type: '4242424242424242', actor_id: 'cli' } })], /data.type/],
    ["another tenant's event", [delivery({ ...rename, tenant_id: EVENT })], /not the webhook's tenant/],
    ['a window of token data in a header', [delivery(rename, { 'x-note': 'n42424' })], /window of T0's data/],
    ['a window of a mask in a header', [delivery(rename, { 'x-note': 'XXXX4242' })], /window/],
    ['a fingerprint', [delivery(rename, { 'x-note': FINGERPRINT })], /fingerprint/],
    ['an API key', [delivery(rename, { 'x-note': 'key_prv_0123456789' })], /API key/],
    ['a metadata value', [delivery(rename, { 'x-note': 'TOE' })], /metadata value/],
    ['a configuration value', [delivery(rename, { 'x-note': 'use:base64' })], /configuration value/],
    ['the signing secret', [delivery(rename, { 'x-note': SECRET })], /signing secret/],
    ['a signature under another secret', [delivery(rename, {}, 'whsec_other')], /signature/],
    ['no delivery of the last event', [delivery({ ...rename, type: 'token.created', data: { id: EVENT, actor_id: 'cli' } })], /did not reach the receiver/],
  ])('fails on %s', async (_, received, problem) => {
    await expect(check(...received)).rejects.toThrow(problem);
  });
});
