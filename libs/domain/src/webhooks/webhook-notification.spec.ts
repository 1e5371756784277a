import fc from 'fast-check';
import type { DomainEvent, EventMetadata } from '../shared/events';
import { notificationOf, retryDelayMs, webhookBody, type Notification } from './webhook-notification';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook.types';

const TENANT = '4eac7000-0000-4000-8000-000000000001';
const OTHER_TENANT = '4eac7000-0000-4000-8000-000000000002';
const APP = 'a7a7a7a7-0000-4000-8000-000000000001';
const ENTITY = 'e1e1e1e1-0000-4000-8000-000000000001';
const EVENT_ID = 'f0f0f0f0-0000-5000-8000-000000000001';
const AT = '2024-05-01T10:00:00.000Z';

/** Every event of the log a webhook hears of, and the type it hears it as. */
const MAPPING: Array<[string, WebhookEventType]> = [
  ['TokenCreated', 'token.created'],
  ['TokenUpdated', 'token.updated'],
  ['TokenDeleted', 'token.deleted'],
  ['ApplicationCreated', 'application.created'],
  ['ApplicationUpdated', 'application.updated'],
  ['ApplicationDeleted', 'application.deleted'],
  ['ApplicationKeyRegenerated', 'application.key_regenerated'],
  ['ReactorFormulaCreated', 'reactor_formula.created'],
  ['ReactorFormulaUpdated', 'reactor_formula.updated'],
  ['ReactorFormulaDeleted', 'reactor_formula.deleted'],
  ['ReactorCreated', 'reactor.created'],
  ['ReactorUpdated', 'reactor.updated'],
  ['ReactorDeleted', 'reactor.deleted'],
  ['ProxyCreated', 'proxy.created'],
  ['ProxyUpdated', 'proxy.updated'],
  ['ProxyDeleted', 'proxy.deleted'],
  ['TenantRenamed', 'tenant.updated'],
];

const metadataOf = (overrides: Partial<EventMetadata> = {}): EventMetadata => ({
  tenant_id: TENANT,
  actor: { type: 'application', id: APP },
  timestamp: AT,
  correlation_id: 'corr-1',
  ...overrides,
});

/** An event of `type` in TENANT about ENTITY, as its stream holds it (a tenant's own events name it by id). */
const eventOf = (type: string, data: Record<string, unknown> = {}): DomainEvent =>
  type === 'TenantRenamed' ? { type, data: { id: TENANT, name: 'Renamed', ...data } } : { type, data: { id: ENTITY, tenant_id: TENANT, ...data } };

describe('notificationOf', () => {
  it('maps every event type a webhook may subscribe to from exactly one event of the log', () => {
    expect(MAPPING.map(([, type]) => type).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  it.each(MAPPING)('tells of %s as %s: the entity, the actor and when', (logType, type) => {
    const notification = notificationOf(eventOf(logType), metadataOf());
    expect(notification).toEqual({
      tenantId: TENANT,
      type,
      entityId: logType === 'TenantRenamed' ? TENANT : ENTITY,
      actorId: APP,
      createdAt: AT,
      tokenType: null,
    });
  });

  it.each(['TokenCreated', 'TokenUpdated', 'TokenDeleted'])("gives a token's type where %s carries it", (logType) => {
    expect(notificationOf(eventOf(logType, { type: 'card_number' }), metadataOf())?.tokenType).toBe('card_number');
  });

  it.each(['ApplicationCreated', 'ReactorFormulaCreated', 'ProxyCreated'])('gives no type for %s, whatever its data calls a type', (logType) => {
    expect(notificationOf(eventOf(logType, { type: 'private' }), metadataOf())?.tokenType).toBeNull();
  });

  it.each([
    'TokenRevealed',
    'TokenDetokenized',
    'AccessRecorded',
    'WebhookCreated',
    'WebhookDeliveryRecorded',
    'TenantCreated',
    'TenantDeleted',
    'OfficialFormulaImported',
    'toString',
    '__proto__',
    'constructor',
  ])('tells of no %s', (logType) => {
    expect(notificationOf(eventOf(logType), metadataOf())).toBeNull();
  });

  it.each(['ReactorFormulaCreated', 'ReactorFormulaUpdated', 'ReactorFormulaDeleted'])('tells no tenant of an official formula (%s with tenant_id null)', (logType) => {
    expect(notificationOf(eventOf(logType, { tenant_id: null }), metadataOf({ tenant_id: null }))).toBeNull();
    expect(notificationOf(eventOf(logType, { tenant_id: null }), metadataOf())).toBeNull();
  });

  it.each(MAPPING.map(([logType]) => logType))('tells of no %s whose metadata names another tenant', (logType) => {
    expect(notificationOf(eventOf(logType), metadataOf({ tenant_id: OTHER_TENANT }))).toBeNull();
  });

  it.each<[string, Record<string, unknown>]>([
    ['no id', { id: undefined }],
    ['an id that is no string', { id: 7 }],
    ['an empty tenant', { tenant_id: '' }],
    ['a tenant that is no string', { tenant_id: { id: TENANT } }],
  ])('tells of no event with %s', (_, data) => {
    expect(notificationOf(eventOf('TokenCreated', data), metadataOf())).toBeNull();
  });
});

describe('webhookBody', () => {
  const notification = (overrides: Partial<Notification> = {}): Notification => ({
    tenantId: TENANT,
    type: 'token.created',
    entityId: ENTITY,
    actorId: APP,
    createdAt: AT,
    tokenType: 'card_number',
    ...overrides,
  });

  it('is { id, type, tenant_id, created_at, data } with the entity, the token type and the actor', () => {
    expect(webhookBody(EVENT_ID, notification())).toEqual({
      id: EVENT_ID,
      type: 'token.created',
      tenant_id: TENANT,
      created_at: AT,
      data: { id: ENTITY, type: 'card_number', actor_id: APP },
    });
  });

  it('leaves the type out when there is none', () => {
    expect(webhookBody(EVENT_ID, notification({ type: 'proxy.deleted', tokenType: null })).data).toEqual({ id: ENTITY, actor_id: APP });
  });

  it.each([
    [APP, APP],
    ['cli', 'cli'],
    ['bootstrap', 'bootstrap'],
    ['sk_live_4242424242424242 and more', 'unknown'],
    ['Bearer abc', 'unknown'],
    ['', 'unknown'],
    ['a'.repeat(42), 'unknown'],
  ])('names actor %j as %j', (actorId, shown) => {
    expect(webhookBody(EVENT_ID, notification({ actorId })).data.actor_id).toBe(shown);
  });
});

describe('retryDelayMs', () => {
  it('retries within 2 s first, then doubling, at most an hour apart', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(retryDelayMs(40)).toBe(3_600_000);
    expect(retryDelayMs(0)).toBe(2_000);
  });
});

describe('what a receiver is told (property)', () => {
  const LOG_TYPES = MAPPING.map(([logType]) => logType);

  /** Strings that look like what must never reach a receiver: card numbers, keys, masks, fingerprints, secrets. */
  const secretLike = fc.oneof(
    fc.stringMatching(/^4[0-9]{12,18}$/),
    fc.stringMatching(/^[0-9]{3}-[0-9]{2}-[0-9]{4}$/),
    fc.stringMatching(/^(sk_live_|key_prv_|pxk_|whsec_)[A-Za-z0-9]{8,40}$/),
    fc.stringMatching(/^X{4,12}[0-9]{4}$/),
    fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{30,50}$/),
    fc.base64String({ minLength: 12, maxLength: 60 }),
    fc.string({ minLength: 8, maxLength: 40 }),
  );
  const anyValue: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 3, arbitrary: secretLike },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), secretLike, { maxKeys: 4 }) },
    { weight: 1, arbitrary: fc.array(secretLike, { maxLength: 4 }) },
  );
  /** The fields the log's events hold that derive from data, keys or configuration, and random others. */
  const SENSITIVE = ['data', 'mask', 'fingerprint', 'metadata', 'search_indexes', 'key_hash', 'key', 'sealed', 'configuration', 'name', 'url', 'code', 'rules', 'destination_url'];
  const extraFields = fc.dictionary(fc.oneof(fc.constantFrom(...SENSITIVE), fc.string({ maxLength: 16 })), anyValue, { maxKeys: 8 });

  const caseArb = fc.record({
    logType: fc.constantFrom(...LOG_TYPES),
    id: fc.uuid(),
    tenant: fc.uuid(),
    tokenType: fc.oneof(fc.constantFrom('card_number', 'social_security_number', 'token'), secretLike),
    extra: extraFields,
    metadataTenant: fc.boolean(),
    actor: fc.oneof(fc.uuid(), fc.constantFrom('cli', 'bootstrap', 'webhooks'), secretLike),
    eventId: fc.uuid(),
  });

  /** Every string value of a JSON value (keys left out: the body's own keys are fixed). */
  const stringsOf = (value: unknown, out: string[] = []): string[] => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach((item) => stringsOf(item, out));
    else if (value && typeof value === 'object') Object.values(value).forEach((item) => stringsOf(item, out));
    return out;
  };

  it('holds only id, type, tenant_id, created_at and data (id, type, actor_id), and no other string of the event', () => {
    fc.assert(
      fc.property(caseArb, ({ logType, id, tenant, tokenType, extra, metadataTenant, actor, eventId }) => {
        // The event's own fields win over random ones of the same name; a tenant's rename names the tenant by its id.
        const entity = logType === 'TenantRenamed' ? tenant : id;
        const data: Record<string, unknown> = { ...extra, id: entity, type: tokenType, ...(logType === 'TenantRenamed' ? {} : { tenant_id: tenant }) };
        const metadata = metadataOf({ tenant_id: metadataTenant ? tenant : null, actor: { type: 'application', id: actor } });
        const notification = notificationOf({ type: logType, data }, metadata);
        expect(notification).not.toBeNull();
        const body = webhookBody(eventId, notification!);
        expect(Object.keys(body).sort()).toEqual(['created_at', 'data', 'id', 'tenant_id', 'type']);
        expect(Object.keys(body.data).every((key) => ['id', 'type', 'actor_id'].includes(key))).toBe(true);
        expect(body).toMatchObject({ id: eventId, tenant_id: tenant, created_at: AT, data: { id: entity } });
        if (!logType.startsWith('Token')) expect('type' in body.data).toBe(false);

        const serialized = JSON.stringify(body);
        // What the body may say: the entity, the tenant, the token's type, and what is not the event's (its id, time, actor).
        const allowed = [entity, tenant, ...(logType.startsWith('Token') ? [tokenType] : []), eventId, AT, body.type, body.data.actor_id];
        // The body's fixed text (its keys, the event type) holds short strings by chance ("y" is in "type").
        const skeleton = allowed.reduce((text, value) => text.split(JSON.stringify(value)).join('""'), serialized);
        const told = stringsOf(data).filter((text) => text.length > 0 && !skeleton.includes(text) && !allowed.some((value) => value.includes(text)));
        for (const text of told) expect(serialized).not.toContain(JSON.stringify(text).slice(1, -1));
      }),
      { numRuns: 200 },
    );
  });
});
