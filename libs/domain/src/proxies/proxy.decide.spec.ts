import { givenWhenThenFor } from '@vault/test-support/given-when-then';
import {
  aContent,
  anApp,
  anApplication,
  APP,
  KEY_HASH,
  LATER,
  OTHER_TENANT,
  PRIVATE_APP_ID,
  PROXY_ID,
  proxyCreated,
  proxyDeleted,
  TENANT,
} from './proxy.builders';
import { proxyDecider, type ProxyCommand } from './proxy.decide';
import type { ProxyApplicationSnapshot, ProxyContent } from './proxy.types';

const { given } = givenWhenThenFor(proxyDecider, anApp());

const content = aContent();
const withApp = aContent({ application_id: PRIVATE_APP_ID });

const create = (c: ProxyContent = content, application: ProxyApplicationSnapshot | null = null): ProxyCommand => ({
  type: 'CreateProxy',
  data: { id: PROXY_ID, content: c, application },
});
const update = (c: ProxyContent = aContent({ name: 'Charge card (live)' }), application: ProxyApplicationSnapshot | null = null): ProxyCommand => ({
  type: 'UpdateProxy',
  data: { id: PROXY_ID, content: c, application },
});
const remove = (): ProxyCommand => ({ type: 'DeleteProxy', data: { id: PROXY_ID } });

const created = proxyCreated();
const othersProxy = proxyCreated({}, { tenantId: OTHER_TENANT });
const deleted = proxyDeleted();

const applicationRules: [string, ProxyApplicationSnapshot | null, string][] = [
  ['does not exist', null, 'application.id names no application of this tenant.'],
  ['was deleted', anApplication({ deleted: true }), 'application.id names no application of this tenant.'],
  ['belongs to another tenant', anApplication({ tenant_id: OTHER_TENANT }), 'application.id names no application of this tenant.'],
  ['is public', anApplication({ type: 'public' }), 'application.id must name a private application, not a public one.'],
  ['is a management application', anApplication({ type: 'management' }), 'application.id must name a private application, not a management one.'],
];

describe('CreateProxy', () => {
  it("records the proxy for the caller's tenant with its sealed secrets and key hash, stamped with the caller and the clock", () => {
    given([])
      .when(create())
      .then([{ type: 'ProxyCreated', data: { id: PROXY_ID, tenant_id: TENANT, ...content, created_by: APP, created_at: LATER.toISOString() } }]);
  });

  it('records the private application of the tenant that its tokenize transforms act as', () => {
    given([])
      .when(create(withApp, anApplication()))
      .then([{ type: 'ProxyCreated', data: expect.objectContaining({ application_id: PRIVATE_APP_ID }) }]);
  });

  it('asks nothing of an application snapshot when the proxy names none', () => {
    given([]).when(create(content, null)).then([expect.objectContaining({ type: 'ProxyCreated' })]);
  });

  it.each([
    ['the id is taken by a live proxy', [created]],
    ['the id belonged to a deleted proxy', [created, deleted]],
  ])('is a conflict when %s', (_, history) => {
    given(history).when(create()).then({ error: 'conflict', message: 'A proxy with this id already exists.' });
  });

  it.each(applicationRules)('refuses an application that %s, on application.id', (_, application, message) => {
    given([]).when(create(withApp, application)).then({ error: 'validation', errors: { 'application.id': [message] } });
  });

  it('refuses a caller that acts for no tenant', () => {
    given([]).when(create(), anApp({ tenantId: null })).then({ error: 'forbidden' });
  });

  it('fails loudly when the handler passed the snapshot of another application', () => {
    const other = anApplication({ id: 'a7a7a7a7-0000-4000-8000-0000000000a2' });
    expect(() => proxyDecider.decide(create(withApp, other), proxyDecider.initialState(), anApp())).toThrow('snapshot of another application');
  });
});

describe('UpdateProxy', () => {
  const changed = aContent({ name: 'Charge card (live)', require_auth: false, application_id: PRIVATE_APP_ID });

  it('records the whole proxy after the change, keeps its tenant, stamps modified_by/modified_at', () => {
    given([created])
      .when(update(changed, anApplication()))
      .then([{ type: 'ProxyUpdated', data: { id: PROXY_ID, tenant_id: TENANT, ...changed, modified_by: APP, modified_at: LATER.toISOString() } }]);
  });

  it.each([
    ['does not exist', []],
    ['was deleted', [created, deleted]],
    ['belongs to another tenant', [othersProxy]],
  ])('answers not found for a proxy that %s', (_, history) => {
    given(history).when(update()).then({ error: 'not_found', message: 'Proxy was not found.' });
  });

  it.each(applicationRules)('refuses an application that %s, on application.id', (_, application, message) => {
    given([created]).when(update(withApp, application)).then({ error: 'validation', errors: { 'application.id': [message] } });
  });

  it('refuses a caller that acts for no tenant', () => {
    given([created]).when(update(), anApp({ tenantId: null })).then({ error: 'forbidden' });
  });

  it('never changes the key: an update carrying another key hash fails loudly and records nothing', () => {
    const state = proxyDecider.evolve(proxyDecider.initialState(), created);
    expect(() => proxyDecider.decide(update(aContent({ key_hash: 'b'.repeat(64) })), state, anApp())).toThrow("would change the proxy's key");
  });

  it('keeps the key hash it was created with', () => {
    given([created]).when(update()).then([{ type: 'ProxyUpdated', data: expect.objectContaining({ key_hash: KEY_HASH }) }]);
  });
});

describe('DeleteProxy', () => {
  it("records the deletion with the proxy's tenant, the caller and the clock", () => {
    given([created])
      .when(remove())
      .then([{ type: 'ProxyDeleted', data: { id: PROXY_ID, tenant_id: TENANT, deleted_by: APP, deleted_at: LATER.toISOString() } }]);
  });

  it.each([
    ['does not exist', []],
    ['was already deleted', [created, deleted]],
    ['belongs to another tenant', [othersProxy]],
  ])('answers not found for a proxy that %s', (_, history) => {
    given(history).when(remove()).then({ error: 'not_found' });
  });

  it('refuses a caller that acts for no tenant', () => {
    given([created]).when(remove(), anApp({ tenantId: null })).then({ error: 'forbidden' });
  });
});

describe('proxy events', () => {
  it('hold no secret in the clear: the key only as its hash, the rest only in the sealed envelope', () => {
    const [event] = proxyDecider.decide(create(), proxyDecider.initialState(), anApp());
    expect(Object.keys(event.data).sort()).toEqual(
      ['application_id', 'created_at', 'created_by', 'id', 'key_hash', 'name', 'require_auth', 'sealed', 'tenant_id'],
    );
    expect(Object.keys((event.data as { sealed: object }).sealed).sort()).toEqual(['alg', 'ciphertext', 'iv', 'key_ref', 'tag', 'v']);
  });
});
