// The hosted vault's own JS SDK drives our proxies over a real port: the proxies service (CRUD) and the proxy service
// (invocations), configured as a user would (test/support/basis-theory-sdk.ts: the base URL, and a request interceptor
// on the SDK's axios instances renaming BT-* headers to SVC-*).
import { BasisTheoryApiError } from '@basis-theory/basis-theory-js/common';
import type { Proxy as SdkProxy } from '@basis-theory/basis-theory-js/types/models';
import { startSdkTestApp, type BasisTheoryClient, type SdkTestApp } from '../../support/basis-theory-sdk';
import { startLocalHttpServer, type LocalHttpServer, type ReceivedRequest } from '../../support/local-http-server';
import { BOOTSTRAP_KEY, createApplication } from '../../support/test-app';

/** A proxy as the SDK hands it back: its declared model, and what our answer adds (camelCased by the SDK). */
type ProxyAnswer = SdkProxy & {
  requestTransforms: unknown[];
  responseTransforms: unknown[];
  application?: { id: string };
  createdBy: string;
  createdAt: string;
  modifiedBy?: string;
  modifiedAt?: string;
};

const CARD = '4242424242424242';
const INBOUND_CARD = '4111111111111111';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A code transform as the SDK's `requestTransform: { code }` carries it: adds a header from the configuration. */
const ADD_AUTH_HEADER = `module.exports = async function (req) {
  const { args: { body, headers }, configuration } = req;
  return { body, headers: { ...headers, 'x-destination-auth': configuration.DESTINATION_API_KEY } };
};
`;
const PASS_THROUGH = 'module.exports = async (req) => ({ body: req.args.body, headers: req.args.headers });\n';

/** The echo destination answers with what it received. */
const echo = (request: ReceivedRequest) => ({ method: request.method, path: request.path, headers: request.headers, body: request.body });

describe('the Basis Theory JS SDK drives our proxies', () => {
  let api: SdkTestApp;
  let destination: LocalHttpServer;
  let management: BasisTheoryClient;
  let shop: BasisTheoryClient;
  let shopApp: { id: string; key: string };

  const lastWire = () => api.wire[api.wire.length - 1];
  const lastReceived = () => destination.received[destination.received.length - 1];

  beforeAll(async () => {
    // On every error answer the SDK tries to send telemetry; in Node that fails before any request (no `document`)
    // and it warns. Kept out of the test output.
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    destination = await startLocalHttpServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echo(request)));
    });
    api = await startSdkTestApp({ VAULT_PROXY_ALLOWED_HOSTS: destination.host });

    const all = ['token:create', 'token:read', 'token:use'];
    shopApp = await createApplication(api.test, {
      name: 'sdk-shop',
      type: 'private',
      permissions: all,
      rules: [{ priority: 1, container: '/', transform: 'mask', permissions: all }],
    });
    management = await api.sdk(BOOTSTRAP_KEY);
    shop = await api.sdk(shopApp.key);
  });

  afterAll(async () => {
    await api?.close();
    await destination?.close();
    jest.restoreAllMocks();
  });

  describe('bt.proxies', () => {
    let created: ProxyAnswer;

    it('create: POST /proxies/ with a snake_cased body; the answer comes back camelCased, the configuration as given', async () => {
      created = (await management.proxies.create({
        name: 'SDK charges',
        destinationUrl: destination.url('/charges'),
        requestTransform: { code: ADD_AUTH_HEADER },
        configuration: { DESTINATION_API_KEY: 'sk_test_sdk', camelCaseSetting: 'kept', snake_case_setting: 'kept too' },
        requireAuth: true,
      })) as ProxyAnswer;

      expect(lastWire()).toMatchObject({ method: 'POST', url: '/proxies/' });
      expect(lastWire().headers).toMatchObject({ 'svc-api-key': BOOTSTRAP_KEY, 'content-type': 'application/json' });
      expect(Object.keys(lastWire().headers).filter((name) => name.startsWith('bt-'))).toEqual([]);
      expect(created).toMatchObject({
        id: expect.stringMatching(UUID),
        tenantId: expect.stringMatching(UUID),
        name: 'SDK charges',
        key: expect.any(String),
        destinationUrl: destination.url('/charges'),
        requestTransform: { code: ADD_AUTH_HEADER },
        requestTransforms: [{ type: 'code', code: ADD_AUTH_HEADER }],
        responseTransform: null,
        responseTransforms: [],
        configuration: { DESTINATION_API_KEY: 'sk_test_sdk', camelCaseSetting: 'kept', snake_case_setting: 'kept too' },
        requireAuth: true,
        createdBy: expect.stringMatching(UUID),
        createdAt: expect.any(String),
      });
      expect(created.key.length).toBeGreaterThanOrEqual(22);
      expect(created).not.toHaveProperty('destination_url');
    });

    it('retrieve: GET /proxies/{id}', async () => {
      const read = (await management.proxies.retrieve(created.id)) as ProxyAnswer;
      expect(lastWire()).toMatchObject({ method: 'GET', url: `/proxies/${created.id}` });
      expect(read).toEqual(created);
    });

    it('update: PUT /proxies/{id} with the create body; the key stays', async () => {
      const updated = (await management.proxies.update(created.id, {
        name: 'SDK charges (EU)',
        destinationUrl: destination.url('/eu/charges'),
        requestTransform: { code: ADD_AUTH_HEADER },
        configuration: { DESTINATION_API_KEY: 'sk_test_eu', camelCaseSetting: 'kept' },
        requireAuth: true,
      })) as ProxyAnswer;
      expect(lastWire()).toMatchObject({ method: 'PUT', url: `/proxies/${created.id}` });
      expect(updated).toMatchObject({
        id: created.id,
        key: created.key,
        name: 'SDK charges (EU)',
        destinationUrl: destination.url('/eu/charges'),
        configuration: { DESTINATION_API_KEY: 'sk_test_eu', camelCaseSetting: 'kept' },
        modifiedBy: expect.stringMatching(UUID),
        modifiedAt: expect.any(String),
      });
      expect(updated.configuration).not.toHaveProperty('snake_case_setting');
    });

    it('patch: PATCH /proxies/{id} as a merge patch; a null configuration setting is removed', async () => {
      const patched = (await management.proxies.patch(created.id, {
        name: 'SDK charges, patched',
        configuration: { camelCaseSetting: null },
      })) as unknown as ProxyAnswer;
      expect(lastWire()).toMatchObject({ method: 'PATCH', url: `/proxies/${created.id}` });
      expect(lastWire().headers['content-type']).toBe('application/merge-patch+json');
      expect(patched).toMatchObject({
        id: created.id,
        name: 'SDK charges, patched',
        destinationUrl: destination.url('/eu/charges'),
        configuration: { DESTINATION_API_KEY: 'sk_test_eu' },
      });
      expect(patched.configuration).not.toHaveProperty('camelCaseSetting');
    });

    it("patch: the SDK's single requestTransform replaces the transforms of its direction, and null removes them", async () => {
      const replaced = (await management.proxies.patch(created.id, { requestTransform: { code: PASS_THROUGH } })) as unknown as ProxyAnswer;
      expect(replaced).toMatchObject({ requestTransform: { code: PASS_THROUGH }, requestTransforms: [{ type: 'code', code: PASS_THROUGH }] });
      // The SDK's PatchProxy types only `configuration` as nullable; a merge patch's null is what removes, as sent from JS.
      const removal = { requestTransform: null } as unknown as Parameters<BasisTheoryClient['proxies']['patch']>[1];
      const removed = (await management.proxies.patch(created.id, removal)) as unknown as ProxyAnswer;
      expect(removed).toMatchObject({ requestTransform: null, requestTransforms: [] });
    });

    it('a refused body rejects with BasisTheoryApiError carrying our problem details (its errors camelCased by the SDK)', async () => {
      const error = await management.proxies.create({ name: 'SDK elsewhere', destinationUrl: 'http://payments.example.com/charges' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BasisTheoryApiError);
      expect((error as BasisTheoryApiError).status).toBe(400);
      expect((error as BasisTheoryApiError).data).toMatchObject({
        status: 400,
        errors: { destinationUrl: ['destination_url must be on a host listed in VAULT_PROXY_ALLOWED_HOSTS.'] },
      });
    });

    it('list: GET /proxies/ (trailing slash), its pagination camelCased as the SDK declares it', async () => {
      const other = (await management.proxies.create({ name: 'SDK another', destinationUrl: destination.url('/another') })) as ProxyAnswer;

      const page = await management.proxies.list();
      expect(lastWire()).toMatchObject({ method: 'GET', url: '/proxies/' });
      expect(page.pagination).toEqual({ totalItems: 2, pageNumber: 1, pageSize: 20, totalPages: 1 });
      expect(page.data.map((proxy) => proxy.name)).toEqual(['SDK another', 'SDK charges, patched']);
      expect(page.data[1]).toMatchObject({ id: created.id, destinationUrl: destination.url('/eu/charges'), requireAuth: true, key: created.key });

      const named = await management.proxies.list({ name: 'SDK another' });
      expect(lastWire().url).toBe('/proxies/?name=SDK+another');
      expect(named.data.map((proxy) => proxy.id)).toEqual([other.id]);

      const second = await management.proxies.list({ page: 2, size: 1 });
      expect(lastWire().url).toBe('/proxies/?page=2&size=1');
      expect(second.pagination).toEqual({ totalItems: 2, pageNumber: 2, pageSize: 1, totalPages: 2 });
      expect(second.data.map((proxy) => proxy.id)).toEqual([created.id]);

      await management.proxies.delete(other.id);
    });

    it('delete: DELETE /proxies/{id}; retrieving it afterwards rejects with the 404', async () => {
      await expect(management.proxies.delete(created.id)).resolves.toBeUndefined();
      expect(lastWire()).toMatchObject({ method: 'DELETE', url: `/proxies/${created.id}` });
      const error = await management.proxies.retrieve(created.id).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BasisTheoryApiError);
      expect((error as BasisTheoryApiError).status).toBe(404);
    });
  });

  describe('bt.proxy', () => {
    let outbound: ProxyAnswer;
    let tokenId: string;

    beforeAll(async () => {
      outbound = (await management.proxies.create({
        name: 'SDK outbound',
        destinationUrl: destination.url('/outbound'),
        requestTransform: { code: ADD_AUTH_HEADER },
        configuration: { DESTINATION_API_KEY: 'sk_test_outbound' },
      })) as ProxyAnswer;
      const token = await shop.tokens.create({ type: 'card_number', data: CARD });
      expect(lastWire()).toMatchObject({ method: 'POST', url: '/tokens/' });
      tokenId = token.id;
    });

    it('post: the card token is detokenized into the body the destination receives, and does not flow back', async () => {
      const answer = await shop.proxy.post({
        path: '/charges',
        headers: { 'BT-PROXY-KEY': outbound.key },
        body: { amount: 1000, card: `{{ ${tokenId} }}` },
      });
      expect(lastWire()).toMatchObject({ method: 'POST', url: '/proxy/charges' });
      expect(lastWire().headers).toMatchObject({ 'svc-api-key': shopApp.key, 'svc-proxy-key': outbound.key });

      const received = lastReceived();
      expect(received).toMatchObject({ method: 'POST', path: '/outbound/charges' });
      expect(JSON.parse(received.body)).toEqual({ amount: 1000, card: CARD });
      expect(received.headers['x-destination-auth']).toBe('sk_test_outbound');
      expect(received.headers).not.toHaveProperty('svc-api-key');
      expect(received.headers).not.toHaveProperty('svc-proxy-key');
      expect(answer).toMatchObject({ method: 'POST', path: '/outbound/charges' });
      expect(JSON.stringify(answer)).not.toContain(CARD);
    });

    // Without a path, the SDK asks GET and DELETE for /proxy/ but POST, PUT and PATCH for /proxy: both reach
    // destination_url itself.
    it('get: GET /proxy/ with a query, appended to the destination', async () => {
      const answer = await shop.proxy.get({ headers: { 'BT-PROXY-KEY': outbound.key }, query: { customer: 'ada' } });
      expect(lastWire()).toMatchObject({ method: 'GET', url: '/proxy/?customer=ada' });
      expect(lastReceived()).toMatchObject({ method: 'GET', path: '/outbound?customer=ada', body: '' });
      expect(answer).toMatchObject({ method: 'GET', path: '/outbound?customer=ada' });
    });

    it('put: PUT /proxy with a detokenized body', async () => {
      const answer = await shop.proxy.put({ path: '/cards/1', headers: { 'BT-PROXY-KEY': outbound.key }, body: { card: `{{ ${tokenId} }}` } });
      expect(lastWire()).toMatchObject({ method: 'PUT', url: '/proxy/cards/1' });
      expect(lastReceived()).toMatchObject({ method: 'PUT', path: '/outbound/cards/1' });
      expect(JSON.parse(lastReceived().body)).toEqual({ card: CARD });
      expect(answer).toMatchObject({ method: 'PUT' });
    });

    it('patch: PATCH /proxy without a path', async () => {
      const answer = await shop.proxy.patch({ headers: { 'BT-PROXY-KEY': outbound.key }, body: { nickname: 'work card' } });
      expect(lastWire()).toMatchObject({ method: 'PATCH', url: '/proxy' });
      expect(lastReceived()).toMatchObject({ method: 'PATCH', path: '/outbound' });
      expect(JSON.parse(lastReceived().body)).toEqual({ nickname: 'work card' });
      expect(answer).toMatchObject({ method: 'PATCH' });
    });

    it('delete: DELETE /proxy/', async () => {
      const answer = await shop.proxy.delete({ headers: { 'BT-PROXY-KEY': outbound.key } });
      expect(lastWire()).toMatchObject({ method: 'DELETE', url: '/proxy/' });
      expect(lastReceived()).toMatchObject({ method: 'DELETE', path: '/outbound' });
      expect(answer).toMatchObject({ method: 'DELETE' });
    });

    it('post with BT-PROXY-URL: an ephemeral proxy detokenizes to the given destination', async () => {
      const answer = await shop.proxy.post({
        headers: { 'BT-PROXY-URL': destination.url('/ephemeral') },
        body: { card: `{{ ${tokenId} }}` },
      });
      expect(lastWire()).toMatchObject({ method: 'POST', url: '/proxy' });
      expect(lastWire().headers['svc-proxy-url']).toBe(destination.url('/ephemeral'));
      expect(lastReceived()).toMatchObject({ method: 'POST', path: '/ephemeral' });
      expect(JSON.parse(lastReceived().body)).toEqual({ card: CARD });
      expect(lastReceived().headers).not.toHaveProperty('svc-proxy-url');
      expect(JSON.stringify(answer)).not.toContain(CARD);
    });

    it('inbound: an anonymous proxy (requireAuth false) with a tokenize transform hands the destination a token id', async () => {
      const inbound = (await management.proxies.create({
        name: 'SDK inbound',
        destinationUrl: destination.url('/inbound'),
        requireAuth: false,
        application: { id: shopApp.id },
        // Not in the SDK's declared model; sent as given, snake_cased like the rest.
        requestTransforms: [{ type: 'tokenize', fields: [{ jsonPath: '$.card.number', token: { type: 'card_number' } }] }],
      } as Parameters<BasisTheoryClient['proxies']['create']>[0])) as ProxyAnswer;
      expect(inbound).toMatchObject({
        requireAuth: false,
        application: { id: shopApp.id },
        requestTransforms: [{ type: 'tokenize', fields: [{ jsonPath: '$.card.number', token: { type: 'card_number' } }] }],
        requestTransform: null,
      });

      const anonymous = await api.sdk(undefined);
      await anonymous.proxy.post({ path: '/webhook', headers: { 'BT-PROXY-KEY': inbound.key }, body: { card: { number: INBOUND_CARD }, id: 'evt_1' } });
      expect(lastWire()).toMatchObject({ method: 'POST', url: '/proxy/webhook' });
      expect(lastWire().headers).not.toHaveProperty('svc-api-key');

      const received = JSON.parse(lastReceived().body) as { card: { number: string }; id: string };
      expect(lastReceived().path).toBe('/inbound/webhook');
      expect(received.id).toBe('evt_1');
      expect(received.card.number).toMatch(UUID);
      expect(lastReceived().body).not.toContain(INBOUND_CARD);
      const token = await shop.tokens.retrieve(received.card.number);
      expect(token).toMatchObject({ id: received.card.number, type: 'card_number', data: 'XXXXXXXXXXXX1111' });
    });
  });
});
