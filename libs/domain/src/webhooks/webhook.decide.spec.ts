import { givenWhenThenFor } from '@vault/test-support/given-when-then';
import type { CommandContext } from '../shared/events';
import type { EncryptedData } from '../tokens/sealed-data';
import { webhookDecider, type WebhookCommand } from './webhook.decide';
import type { WebhookCreated, WebhookDeleted, WebhookUpdated } from './webhook.events';
import type { ValidWebhook, WebhookContent } from './webhook.types';

const TENANT = '4eac7000-0000-4000-8000-000000000001';
const OTHER_TENANT = '4eac7000-0000-4000-8000-000000000002';
const APP = 'a7a7a7a7-0000-4000-8000-000000000001';
const EDITOR = 'b2b2b2b2-0000-4000-8000-000000000002';
const WEBHOOK_ID = 'c0c0c0c0-0000-4000-8000-000000000001';
const CREATED_AT = '2024-05-01T10:00:00.000Z';
const LATER = new Date('2024-05-02T12:30:00.000Z');

const anApp = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: TENANT,
  actor: { type: 'application', id: APP },
  now: LATER,
  correlationId: 'corr-1',
  ...overrides,
});

const SEALED: EncryptedData = { v: 1, alg: 'AES-256-GCM', key_ref: `webhook:${WEBHOOK_ID}`, iv: 'aXY=', ciphertext: 'c2VjcmV0', tag: 'dGFn' };

const settings = (overrides: Partial<ValidWebhook> = {}): ValidWebhook => ({
  name: 'Billing',
  url: 'https://hooks.example.com/vault',
  events: ['token.created', 'token.deleted'],
  enabled: true,
  ...overrides,
});
const content = (overrides: Partial<WebhookContent> = {}): WebhookContent => ({ ...settings(), sealed_secret: SEALED, ...overrides });

const created = (tenantId = TENANT): WebhookCreated => ({
  type: 'WebhookCreated',
  data: { id: WEBHOOK_ID, tenant_id: tenantId, ...content(), created_by: EDITOR, created_at: CREATED_AT },
});
const updatedEarlier = (): WebhookUpdated => ({
  type: 'WebhookUpdated',
  data: { id: WEBHOOK_ID, tenant_id: TENANT, ...content({ name: 'Renamed', enabled: false }), modified_by: EDITOR, modified_at: CREATED_AT },
});
const deleted = (): WebhookDeleted => ({
  type: 'WebhookDeleted',
  data: { id: WEBHOOK_ID, tenant_id: TENANT, deleted_by: EDITOR, deleted_at: CREATED_AT },
});

const create = (c: WebhookContent = content()): WebhookCommand => ({ type: 'CreateWebhook', data: { id: WEBHOOK_ID, content: c } });
const update = (s: ValidWebhook = settings({ name: 'Billing (paused)', enabled: false })): WebhookCommand => ({
  type: 'UpdateWebhook',
  data: { id: WEBHOOK_ID, settings: s },
});
const remove = (): WebhookCommand => ({ type: 'DeleteWebhook', data: { id: WEBHOOK_ID } });

const { given } = givenWhenThenFor(webhookDecider, anApp());

describe('CreateWebhook', () => {
  it("records the webhook for the caller's tenant with its settings and sealed secret, stamped with the caller and the clock", () => {
    given([])
      .when(create())
      .then([{ type: 'WebhookCreated', data: { id: WEBHOOK_ID, tenant_id: TENANT, ...content(), created_by: APP, created_at: LATER.toISOString() } }]);
  });

  it('records a disabled webhook as disabled', () => {
    given([])
      .when(create(content({ enabled: false, events: ['tenant.updated'] })))
      .then([{ type: 'WebhookCreated', data: expect.objectContaining({ enabled: false, events: ['tenant.updated'] }) }]);
  });

  it.each([
    ['the id is taken by a live webhook', [created()]],
    ['the id belonged to a deleted webhook', [created(), deleted()]],
  ])('is a conflict when %s', (_, history) => {
    given(history).when(create()).then({ error: 'conflict', message: 'A webhook with this id already exists.' });
  });

  it('refuses a caller that acts for no tenant', () => {
    given([]).when(create(), anApp({ tenantId: null })).then({ error: 'forbidden', message: 'Webhooks belong to a tenant' });
  });
});

describe('UpdateWebhook', () => {
  it('replaces the settings whole, keeps the sealed secret the create made, and stamps the editor and the clock', () => {
    const s = settings({ name: 'Billing (paused)', url: 'https://hooks.example.com/v2', events: ['proxy.created'], enabled: false });
    given([created()])
      .when(update(s), anApp({ actor: { type: 'application', id: EDITOR } }))
      .then([
        {
          type: 'WebhookUpdated',
          data: { id: WEBHOOK_ID, tenant_id: TENANT, ...s, sealed_secret: SEALED, modified_by: EDITOR, modified_at: LATER.toISOString() },
        },
      ]);
  });

  it('acts on the webhook as its last update left it, and can enable it again', () => {
    given([created(), updatedEarlier()])
      .when(update(settings({ enabled: true })))
      .then([{ type: 'WebhookUpdated', data: expect.objectContaining({ name: 'Billing', enabled: true, sealed_secret: SEALED }) }]);
  });

  it.each([
    ['does not exist', []],
    ['was deleted', [created(), deleted()]],
    ['belongs to another tenant', [created(OTHER_TENANT)]],
  ])('is the same 404 when the webhook %s', (_, history) => {
    given(history).when(update()).then({ error: 'not_found', message: 'Webhook' });
  });

  it('refuses a caller that acts for no tenant', () => {
    given([created()]).when(update(), anApp({ tenantId: null })).then({ error: 'forbidden' });
  });
});

describe('DeleteWebhook', () => {
  it('records the delete, stamped with the caller and the clock', () => {
    given([created()])
      .when(remove())
      .then([{ type: 'WebhookDeleted', data: { id: WEBHOOK_ID, tenant_id: TENANT, deleted_by: APP, deleted_at: LATER.toISOString() } }]);
  });

  it.each([
    ['does not exist', []],
    ['was deleted already', [created(), deleted()]],
    ['belongs to another tenant', [created(OTHER_TENANT)]],
  ])('is the same 404 when the webhook %s', (_, history) => {
    given(history).when(remove()).then({ error: 'not_found', message: 'Webhook' });
  });

  it('leaves the id taken: a create with it after the delete is a conflict', () => {
    given([created(), deleted()]).when(create()).then({ error: 'conflict' });
  });
});
