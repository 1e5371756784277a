import { applicationCreated } from '../applications/application.builders';
import { aFormulaInput, formulaCreated } from '../reactor-formulas/reactor-formula.builders';
import { aContent, reactorCreated } from '../reactors/reactor.builders';
import type { Actor, EventMetadata } from '../shared/events';
import { aTokenContent, tokenCreated } from '../tokens/token.builders';
import type { AccessRecordedData, AuditEntry } from './audit';
import { accessMessage, AUDITED_EVENT_TYPES, auditEntryOf, type AuditedEvent } from './audit-entries';

const TENANT = '7e57e57e-0000-4000-8000-0000000000aa';
const APP = 'a99a99a9-0000-4000-8000-0000000000bb';
const ID = 'b0b0b0b0-0000-4000-8000-0000000000cc';
const REACTOR = 'e0e0e0e0-0000-4000-8000-0000000000dd';
const AT = '2024-05-02T12:30:00.000Z';
/** Planted in every field an entry must not copy: names, key hashes, masks, expressions, code, metadata, shapes. */
const SECRET = 'SECRET-4111111111111111';

const app: Actor = { type: 'application', id: APP };
const metadataOf = (actor: Actor = app, tenant: string | null = TENANT): EventMetadata => ({
  tenant_id: tenant,
  actor,
  timestamp: AT,
  correlation_id: SECRET,
});

const tokenContent = aTokenContent({
  fingerprint: SECRET,
  fingerprint_expression: SECRET,
  mask: SECRET,
  metadata: { note: SECRET },
  search_indexes: [SECRET],
  search_hashes: [SECRET],
  containers: [`/${SECRET}/`],
});
const token = tokenCreated(tokenContent, { tenantId: TENANT, id: ID });
const application = applicationCreated({ name: SECRET, type: 'private', permissions: ['token:read'] }, { tenantId: TENANT, id: ID });
const applicationSettings = { name: SECRET, type: 'private' as const, permissions: [SECRET], rules: [], expires_at: null };
const reactorContent = aContent({ name: SECRET, configuration_shape: [{ name: SECRET, type: 'string' }] });
const reactor = reactorCreated(reactorContent, { tenantId: TENANT, id: ID });
const formulaInput = aFormulaInput({ name: SECRET, description: SECRET, code: `// ${SECRET}` });
const formula = formulaCreated(formulaInput, { tenantId: TENANT, by: APP }, ID);
const proxyFields = {
  id: ID,
  tenant_id: TENANT,
  name: SECRET,
  require_auth: true,
  application_id: APP,
  key_hash: SECRET,
  sealed: { v: 1 as const, alg: 'AES-256-GCM' as const, key_ref: SECRET, iv: SECRET, ciphertext: SECRET, tag: SECRET },
};
const webhookFields = {
  id: ID,
  tenant_id: TENANT,
  name: SECRET,
  url: `https://${SECRET}.example.com/hook`,
  events: ['token.created' as const],
  enabled: true,
  sealed_secret: { v: 1 as const, alg: 'AES-256-GCM' as const, key_ref: SECRET, iv: SECRET, ciphertext: SECRET, tag: SECRET },
};
const access = (data: Partial<AccessRecordedData>): AuditedEvent => ({
  type: 'AccessRecorded',
  data: { tenant_id: TENANT, entity_type: 'token', entity_id: ID, operation: 'reveal', via: 'get', created_at: AT, ...data },
});

const expected = (overrides: Partial<AuditEntry>): AuditEntry => ({
  tenant_id: TENANT,
  actor_id: APP,
  actor_type: 'application',
  entity_type: 'token',
  entity_id: ID,
  operation: 'create',
  message: 'Token created',
  created_at: AT,
  ...overrides,
});

const cases: Array<[string, AuditedEvent, Partial<AuditEntry>]> = [
  ['TokenCreated', { ...token, data: { ...token.data, created_at: AT } }, {}],
  [
    'TokenUpdated',
    { type: 'TokenUpdated', data: { ...tokenContent, id: ID, tenant_id: TENANT, modified_by: APP, modified_at: AT } },
    { operation: 'update', message: 'Token updated' },
  ],
  [
    'TokenDeleted',
    { type: 'TokenDeleted', data: { id: ID, tenant_id: TENANT, reason: 'requested', deleted_by: APP, deleted_at: AT } },
    { operation: 'delete', message: 'Token deleted' },
  ],
  [
    'TokenDeleted (expired)',
    { type: 'TokenDeleted', data: { id: ID, tenant_id: TENANT, reason: 'expired', deleted_by: 'expiry-sweep', deleted_at: AT } },
    { operation: 'delete', message: 'Token deleted on expiry' },
  ],
  [
    'ApplicationCreated',
    { ...application, data: { ...application.data, key_hash: SECRET, created_at: AT } },
    { entity_type: 'application', message: 'Application created' },
  ],
  [
    'ApplicationUpdated',
    { type: 'ApplicationUpdated', data: { ...applicationSettings, id: ID, tenant_id: TENANT, modified_by: APP, modified_at: AT } },
    { entity_type: 'application', operation: 'update', message: 'Application updated' },
  ],
  [
    'ApplicationKeyRegenerated',
    { type: 'ApplicationKeyRegenerated', data: { id: ID, tenant_id: TENANT, key_hash: SECRET, modified_by: APP, modified_at: AT } },
    { entity_type: 'application', operation: 'regenerate', message: 'Application key regenerated' },
  ],
  [
    'ApplicationDeleted',
    { type: 'ApplicationDeleted', data: { id: ID, tenant_id: TENANT, deleted_by: APP, deleted_at: AT } },
    { entity_type: 'application', operation: 'delete', message: 'Application deleted' },
  ],
  ['ReactorCreated', { ...reactor, data: { ...reactor.data, created_at: AT } }, { entity_type: 'reactor', message: 'Reactor created' }],
  [
    'ReactorUpdated',
    { type: 'ReactorUpdated', data: { ...reactorContent, id: ID, tenant_id: TENANT, formula_id: REACTOR, modified_by: APP, modified_at: AT } },
    { entity_type: 'reactor', operation: 'update', message: 'Reactor updated' },
  ],
  [
    'ReactorDeleted',
    { type: 'ReactorDeleted', data: { id: ID, tenant_id: TENANT, formula_id: REACTOR, deleted_by: APP, deleted_at: AT } },
    { entity_type: 'reactor', operation: 'delete', message: 'Reactor deleted' },
  ],
  [
    'ReactorFormulaCreated',
    { ...formula, data: { ...formula.data, created_at: AT } },
    { entity_type: 'reactor_formula', message: 'Reactor formula created' },
  ],
  [
    'ReactorFormulaUpdated',
    {
      type: 'ReactorFormulaUpdated',
      data: { ...formulaInput, id: ID, tenant_id: TENANT, status: 'verified', modified_by: APP, modified_at: AT },
    },
    { entity_type: 'reactor_formula', operation: 'update', message: 'Reactor formula updated' },
  ],
  [
    'ReactorFormulaDeleted',
    { type: 'ReactorFormulaDeleted', data: { id: ID, deleted_by: APP, deleted_at: AT } },
    { entity_type: 'reactor_formula', operation: 'delete', message: 'Reactor formula deleted' },
  ],
  [
    'ProxyCreated',
    { type: 'ProxyCreated', data: { ...proxyFields, created_by: APP, created_at: AT } },
    { entity_type: 'proxy', message: 'Proxy created' },
  ],
  [
    'ProxyUpdated',
    { type: 'ProxyUpdated', data: { ...proxyFields, modified_by: APP, modified_at: AT } },
    { entity_type: 'proxy', operation: 'update', message: 'Proxy updated' },
  ],
  [
    'ProxyDeleted',
    { type: 'ProxyDeleted', data: { id: ID, tenant_id: TENANT, deleted_by: APP, deleted_at: AT } },
    { entity_type: 'proxy', operation: 'delete', message: 'Proxy deleted' },
  ],
  [
    'WebhookCreated',
    { type: 'WebhookCreated', data: { ...webhookFields, created_by: APP, created_at: AT } },
    { entity_type: 'webhook', message: 'Webhook created' },
  ],
  [
    'WebhookUpdated',
    { type: 'WebhookUpdated', data: { ...webhookFields, modified_by: APP, modified_at: AT } },
    { entity_type: 'webhook', operation: 'update', message: 'Webhook updated' },
  ],
  [
    'WebhookDeleted',
    { type: 'WebhookDeleted', data: { id: ID, tenant_id: TENANT, deleted_by: APP, deleted_at: AT } },
    { entity_type: 'webhook', operation: 'delete', message: 'Webhook deleted' },
  ],
  [
    'TenantCreated',
    { type: 'TenantCreated', data: { id: TENANT, name: SECRET, created_by: APP, created_at: AT } },
    { entity_type: 'tenant', entity_id: TENANT, message: 'Tenant created' },
  ],
  [
    'TenantRenamed',
    { type: 'TenantRenamed', data: { id: TENANT, name: SECRET, modified_by: APP, modified_at: AT } },
    { entity_type: 'tenant', entity_id: TENANT, operation: 'update', message: 'Tenant renamed' },
  ],
  [
    'TenantDeleted',
    { type: 'TenantDeleted', data: { id: TENANT, deleted_by: APP, deleted_at: AT } },
    { entity_type: 'tenant', entity_id: TENANT, operation: 'delete', message: 'Tenant deleted' },
  ],
  ['AccessRecorded reveal by GET', access({}), { operation: 'reveal', message: 'Token revealed in plaintext (GET /tokens/{id})' }],
  [
    'AccessRecorded search',
    access({ entity_id: null, operation: 'search', via: 'search', count: 3 }),
    { entity_id: null, operation: 'search', message: 'Search returned 3 tokens in plaintext' },
  ],
  [
    'AccessRecorded use',
    access({ operation: 'use', via: 'react', reactor_id: REACTOR }),
    { operation: 'use', message: `Token used by reactor ${REACTOR}` },
  ],
  [
    'AccessRecorded invoke',
    access({ entity_type: 'reactor', entity_id: REACTOR, operation: 'invoke', via: 'react' }),
    { entity_type: 'reactor', entity_id: REACTOR, operation: 'invoke', message: 'Reactor invoked' },
  ],
  [
    'AccessRecorded use in a proxy',
    access({ operation: 'use', via: 'proxy', proxy_id: REACTOR }),
    { operation: 'use', message: `Token used by proxy ${REACTOR}` },
  ],
  [
    'AccessRecorded use withheld from a proxy answer',
    access({ operation: 'use', via: 'proxy', proxy_id: REACTOR, withheld: true }),
    { operation: 'use', message: `Token data withheld from the answer of proxy ${REACTOR}` },
  ],
  [
    'AccessRecorded use in an ephemeral proxy',
    access({ operation: 'use', via: 'proxy' }),
    { operation: 'use', message: 'Token used by an ephemeral proxy' },
  ],
  [
    'AccessRecorded proxy invoke',
    access({ entity_type: 'proxy', entity_id: REACTOR, operation: 'invoke', via: 'proxy' }),
    { entity_type: 'proxy', entity_id: REACTOR, operation: 'invoke', message: 'Proxy invoked' },
  ],
  [
    'AccessRecorded ephemeral proxy invoke',
    access({ entity_type: 'proxy', entity_id: null, operation: 'invoke', via: 'proxy' }),
    { entity_type: 'proxy', entity_id: null, operation: 'invoke', message: 'Ephemeral proxy invoked' },
  ],
];

describe('auditEntryOf', () => {
  it.each(cases)('%s → its entry, with ids, the actor, the operation, a fixed text and the time only', (_name, event, overrides) => {
    const entry = auditEntryOf({ ...event, metadata: metadataOf() });
    expect(entry).toEqual(expected(overrides));
    expect(JSON.stringify(entry)).not.toContain('SECRET');
  });

  it('covers every audited event type in the cases above', () => {
    expect(new Set(cases.map(([, event]) => event.type))).toEqual(new Set(AUDITED_EVENT_TYPES));
  });

  it.each([
    ['the operator', { type: 'operator', id: 'cli' }],
    ['the system (bootstrap, expiry sweep)', { type: 'system', id: 'expiry-sweep' }],
  ] as Array<[string, Actor]>)('names %s as an operator, by its fixed name', (_name, actor) => {
    const entry = auditEntryOf({ ...cases[0][1], metadata: metadataOf(actor) });
    expect(entry).toMatchObject({ actor_type: 'operator', actor_id: actor.id });
  });

  it('names an anonymous proxy invocation as anonymous', () => {
    const invoked = access({ entity_type: 'proxy', entity_id: REACTOR, operation: 'invoke', via: 'proxy' });
    const entry = auditEntryOf({ ...invoked, metadata: metadataOf({ type: 'anonymous', id: 'anonymous' }) });
    expect(entry).toMatchObject({ actor_type: 'anonymous', actor_id: 'anonymous', message: 'Proxy invoked' });
  });

  it('makes no entry for an official formula (it belongs to no tenant)', () => {
    const official = formulaCreated(formulaInput, { tenantId: null, by: 'cli' }, ID);
    expect(auditEntryOf({ ...official, metadata: metadataOf({ type: 'operator', id: 'cli' }, null) })).toBeNull();
    const deleted = { type: 'ReactorFormulaDeleted', data: { id: ID, deleted_by: 'cli', deleted_at: AT } };
    expect(auditEntryOf({ ...deleted, metadata: metadataOf({ type: 'operator', id: 'cli' }, null) })).toBeNull();
  });

  it("takes the tenant and the time from the metadata when an older event's data lacks them", () => {
    const event = { type: 'TokenDeleted', data: { id: ID, reason: 'requested', deleted_by: APP }, metadata: metadataOf() };
    expect(auditEntryOf(event)).toEqual(expected({ operation: 'delete', message: 'Token deleted' }));
  });

  it.each(['TokenSearched', 'toString', '__proto__', 'constructor'])('makes no entry for the event type %j', (type) => {
    expect(auditEntryOf({ type, data: { id: ID, tenant_id: TENANT }, metadata: metadataOf() })).toBeNull();
  });
});

describe('accessMessage', () => {
  const base: AccessRecordedData = { tenant_id: TENANT, entity_type: 'token', entity_id: ID, operation: 'reveal', via: 'get', created_at: AT };

  it.each([
    [{ via: 'detokenize' }, 'Token revealed in plaintext (detokenize)'],
    [{ via: 'search' }, 'Token revealed in plaintext (search)'],
    [{ operation: 'search', via: 'search', count: 1 }, 'Search returned 1 token in plaintext'],
    [{ operation: 'search', via: 'search', count: 0 }, 'Search returned 0 tokens in plaintext'],
    [{ operation: 'search', via: 'search' }, 'Search returned tokens in plaintext'],
    [{ operation: 'search', via: 'search', count: -1 }, 'Search returned tokens in plaintext'],
    [{ operation: 'search', via: 'search', count: 1.5 }, 'Search returned tokens in plaintext'],
    [{ operation: 'use', via: 'react' }, 'Token used by a reactor'],
    [{ operation: 'use', via: 'react', reactor_id: SECRET }, 'Token used by a reactor'],
  ] as Array<[Partial<AccessRecordedData>, string]>)('%j → %j', (data, message) => {
    expect(accessMessage({ ...base, ...data })).toBe(message);
  });
});
