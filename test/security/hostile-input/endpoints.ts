// Every route the API serves, with valid requests to mutate: bodies and queries whose `⟨secret⟩` marks take fresh
// secrets and whose `⟨token⟩`-style marks take the current id of a reference (references.ts).
import { MASK_EMAIL, PNG, Ref } from './references';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type KeyRef = Extract<Ref, 'adminKey' | 'privateKey' | 'tenantKey'>;

export interface Endpoint {
  method: Method;
  /** As the OpenAPI document writes it: `{id}` takes the id of `id` (or, now and then, a stray one). */
  path: string;
  id?: Ref;
  /** Whose key a valid request carries. */
  who: KeyRef | 'none';
  /** Valid bodies; absent: the endpoint takes none (one is still sent now and then). */
  bodies?: unknown[];
  /** Valid query strings, without `?`. */
  queries?: string[];
  /** The reference a success may have changed or deleted: the next request gets a new one. */
  spends?: Ref;
}

const applicationBody = {
  name: 'fuzzed ⟨secret⟩',
  type: 'private',
  permissions: ['token:read', 'token:search', 'token:create'],
  rules: [
    { description: '⟨secret⟩', priority: 1, container: '/pii/', transform: 'mask', permissions: ['token:read'] },
    { description: 'cards', priority: 2, container: '/pci/', transform: 'redact', permissions: ['token:read', 'token:search'] },
    { priority: 3, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] },
  ],
  expires_at: null,
};

const ssnBody = {
  type: 'social_security_number',
  data: '123-45-6789',
  containers: ['/pii/high/'],
  metadata: { customer: '⟨secret⟩', region: 'eu' },
  search_indexes: ['{{ data }}', '{{ data | last4 }}'],
  fingerprint_expression: "{{ data | remove: '-' }}",
  mask: '{{ data | reveal_last: 4 }}',
  deduplicate_token: false,
  expires_at: '2999-01-01T00:00:00Z',
};
const nestedTokenBody = {
  type: 'token',
  data: { card: { number: '⟨secret⟩', holder: { name: '⟨secret⟩' } }, list: ['⟨secret⟩', 1, null] },
  containers: ['/general/high/', '/pci/'],
  metadata: { note: '⟨secret⟩' },
  deduplicate_token: true,
};
const patchBody = {
  data: '987-65-4321',
  containers: ['/pii/'],
  metadata: { customer: null, tier: '⟨secret⟩' },
  search_indexes: ['{{ data | last4 }}'],
  mask: '{{ data | last4 }}',
  expires_at: null,
};
const searchBodies = [
  { query: 'type:token AND metadata.customer:acme', page: 1, size: 20 },
  { query: 'data:"⟨secret⟩" OR (metadata.note:⟨secret⟩ AND NOT container:"/pii/*")', size: 5 },
  { query: null, page: 2, size: 3 },
];

// Tokenize walks any object or array; detokenize and react read expressions of the stable token at any depth.
const tokenizeBodies = [
  {
    card: { type: 'token', data: { number: '⟨secret⟩', holder: '⟨secret⟩' } },
    ssn: { type: 'social_security_number', data: '123-45-6789', metadata: { note: '⟨secret⟩' } },
    notes: ['⟨secret⟩', 42, true, null],
    nested: { leaf: '⟨secret⟩', list: [{ type: 'token', data: { a: '⟨secret⟩' } }, ['⟨secret⟩']] },
  },
  ['⟨secret⟩', { type: 'token', data: '⟨secret⟩', containers: ['/pci/'] }],
];
const detokenizeBody = {
  card: '{{ ⟨token⟩ }}',
  text: "x {{ token: ⟨token⟩ | json: '$.a' | last4 }} y ⟨secret⟩",
  nested: { list: [null, "{{ ⟨token⟩ | json: '$.n' }}", { deep: ['{{ token: ⟨token⟩ }}', '⟨secret⟩'] }] },
  n: 5,
};

const formulaBody = {
  name: 'Fuzzed formula ⟨secret⟩',
  description: '⟨secret⟩',
  type: 'private',
  icon: PNG,
  code: '// ⟨secret⟩\nmodule.exports = async function ({ args }) { return { raw: { keys: Object.keys(args).length } }; };',
  configuration: [
    { name: 'region', description: '⟨secret⟩', type: 'string' },
    { name: 'retries', description: 'how often', type: 'number' },
  ],
  request_parameters: [
    { name: 'card.number', description: 'PAN', type: 'string', optional: false },
    { name: 'card.holder.name', description: '⟨secret⟩', type: 'string', optional: true },
    { name: 'amount', description: 'in cents', type: 'number', optional: true },
  ],
};

// Configuration values are secrets: the Mask Email formula takes any string as its mask character.
const reactorBodies = [
  { name: 'Fuzzed reactor ⟨secret⟩', formula: { id: MASK_EMAIL.id }, configuration: { mask_character: '⟨secret⟩', reveal_domain: true }, application: { id: '⟨application⟩' } },
  { name: '⟨secret⟩', formula: { id: '⟨formula⟩' }, configuration: { region: '⟨secret⟩', retries: 3 }, application: null },
];
const reactorUpdateBody = { name: '⟨secret⟩', configuration: { mask_character: '⟨secret⟩', reveal_domain: false }, application: { id: '⟨application⟩' } };
const reactorPatchBody = { name: 'Patched ⟨secret⟩', configuration: { mask_character: '⟨secret⟩' }, application: null };
const reactBody = {
  args: {
    card: { number: "{{ ⟨token⟩ | json: '$.a' }}", holder: { name: '⟨secret⟩' } },
    amount: 1250,
    note: { deep: ['⟨secret⟩', { x: "{{ token: ⟨token⟩ | json: '$.a' | last4 }}" }] },
  },
};

// A proxy's configuration values are secrets, and so is what its code and the destination's path say.
const proxyBody = {
  name: 'Fuzzed proxy ⟨secret⟩',
  destination_url: '⟨destination⟩/fuzzed/⟨secret⟩',
  request_transforms: [
    { type: 'code', code: '// ⟨secret⟩\nmodule.exports = async ({ args, configuration }) => ({ headers: { ...args.headers, authorization: configuration.api_key } });' },
    { type: 'tokenize', fields: [{ json_path: '$.card.number', token: { type: 'card_number', containers: ['/pci/'], metadata: { note: '⟨secret⟩' } } }] },
  ],
  response_transforms: [{ type: 'mask', fields: ['$.card.number', '$.echo.note'] }],
  application: { id: '⟨application⟩' },
  configuration: { api_key: '⟨secret⟩', region: 'eu' },
  require_auth: true,
};
// A webhook's URL may carry a secret in its path; it goes to an allowed host where nothing listens, so deliveries fail.
const webhookBody = {
  name: 'Fuzzed webhook ⟨secret⟩',
  url: '⟨unreachable⟩/hooks/⟨secret⟩',
  events: ['token.created', 'token.updated', 'application.updated', 'tenant.updated'],
  enabled: true,
};
const proxyPatchBody = { name: 'Patched ⟨secret⟩', configuration: { api_key: '⟨secret⟩', region: null }, require_auth: false, response_transform: { code: 'module.exports = async () => ({});' } };

export const ENDPOINTS: Endpoint[] = [
  { method: 'get', path: '/permissions', who: 'privateKey' },
  { method: 'post', path: '/applications', who: 'adminKey', bodies: [applicationBody] },
  { method: 'get', path: '/applications', who: 'adminKey', queries: ['page=1&size=5', 'page=1000'] },
  { method: 'get', path: '/applications/{id}', id: 'application', who: 'adminKey' },
  { method: 'put', path: '/applications/{id}', id: 'putApplication', who: 'adminKey', bodies: [applicationBody], spends: 'putApplication' },
  { method: 'delete', path: '/applications/{id}', id: 'deleteApplication', who: 'adminKey', spends: 'deleteApplication' },
  { method: 'post', path: '/applications/{id}/regenerate', id: 'regenerateApplication', who: 'adminKey', spends: 'regenerateApplication' },
  { method: 'post', path: '/tokens', who: 'privateKey', bodies: [ssnBody, nestedTokenBody] },
  { method: 'post', path: '/tokens/search', who: 'privateKey', bodies: searchBodies },
  { method: 'get', path: '/tokens/{id}', id: 'token', who: 'privateKey' },
  { method: 'patch', path: '/tokens/{id}', id: 'patchToken', who: 'privateKey', bodies: [patchBody], spends: 'patchToken' },
  { method: 'delete', path: '/tokens/{id}', id: 'deleteToken', who: 'privateKey', spends: 'deleteToken' },
  { method: 'post', path: '/tokenize', who: 'privateKey', bodies: tokenizeBodies },
  { method: 'post', path: '/tokens/tokenize', who: 'privateKey', bodies: tokenizeBodies },
  { method: 'post', path: '/detokenize', who: 'privateKey', bodies: [detokenizeBody] },
  { method: 'post', path: '/reactor-formulas', who: 'adminKey', bodies: [formulaBody] },
  { method: 'get', path: '/reactor-formulas', who: 'adminKey', queries: ['name=⟨secret⟩&page=1&size=10', 'name=Fuzz*'] },
  { method: 'get', path: '/reactor-formulas/{id}', id: 'formula', who: 'adminKey' },
  { method: 'put', path: '/reactor-formulas/{id}', id: 'putFormula', who: 'adminKey', bodies: [formulaBody], spends: 'putFormula' },
  { method: 'put', path: '/reator-formula/{id}', id: 'aliasFormula', who: 'adminKey', bodies: [formulaBody], spends: 'aliasFormula' },
  { method: 'delete', path: '/reactor-formulas/{id}', id: 'deleteFormula', who: 'adminKey', spends: 'deleteFormula' },
  { method: 'post', path: '/reactors', who: 'adminKey', bodies: reactorBodies },
  { method: 'get', path: '/reactors', who: 'adminKey', queries: ['name=⟨secret⟩', 'name=Fuzz*&size=3'] },
  { method: 'get', path: '/reactors/{id}', id: 'reactor', who: 'adminKey' },
  { method: 'put', path: '/reactors/{id}', id: 'putReactor', who: 'adminKey', bodies: [reactorUpdateBody], spends: 'putReactor' },
  { method: 'patch', path: '/reactors/{id}', id: 'patchReactor', who: 'adminKey', bodies: [reactorPatchBody], spends: 'patchReactor' },
  { method: 'delete', path: '/reactors/{id}', id: 'deleteReactor', who: 'adminKey', spends: 'deleteReactor' },
  { method: 'post', path: '/reactors/{id}/react', id: 'reactor', who: 'privateKey', bodies: [reactBody] },
  { method: 'post', path: '/proxies', who: 'adminKey', bodies: [proxyBody] },
  { method: 'get', path: '/proxies', who: 'adminKey', queries: ['name=⟨secret⟩&page=1&size=10', 'name=Fuzz*'] },
  { method: 'get', path: '/proxies/{id}', id: 'proxy', who: 'adminKey' },
  { method: 'put', path: '/proxies/{id}', id: 'putProxy', who: 'adminKey', bodies: [proxyBody], spends: 'putProxy' },
  { method: 'patch', path: '/proxies/{id}', id: 'patchProxy', who: 'adminKey', bodies: [proxyPatchBody], spends: 'patchProxy' },
  { method: 'delete', path: '/proxies/{id}', id: 'deleteProxy', who: 'adminKey', spends: 'deleteProxy' },
  { method: 'post', path: '/webhooks', who: 'adminKey', bodies: [webhookBody] },
  { method: 'get', path: '/webhooks', who: 'adminKey', queries: ['page=1&size=5', 'page=1000'] },
  { method: 'get', path: '/webhooks/{id}', id: 'webhook', who: 'adminKey' },
  { method: 'put', path: '/webhooks/{id}', id: 'putWebhook', who: 'adminKey', bodies: [webhookBody, { ...webhookBody, enabled: false }], spends: 'putWebhook' },
  { method: 'delete', path: '/webhooks/{id}', id: 'deleteWebhook', who: 'adminKey', spends: 'deleteWebhook' },
  { method: 'get', path: '/webhooks/{id}/deliveries', id: 'webhook', who: 'adminKey', queries: ['page=1&size=5', 'size=100&page=2'] },
  { method: 'get', path: '/logs', who: 'adminKey', queries: ['entity_type=token&page=1&size=10', 'entity_id=⟨token⟩&start_date=2024-01-01', 'entity_type=⟨secret⟩'] },
  { method: 'get', path: '/tenants/self', who: 'adminKey' },
  { method: 'get', path: '/tenants/self/reports/usage', who: 'adminKey' },
  { method: 'put', path: '/tenants/self', who: 'adminKey', bodies: [{ name: 'Fuzzed tenant ⟨secret⟩' }] },
  { method: 'delete', path: '/tenants/self', who: 'tenantKey', spends: 'tenantKey' },
  { method: 'get', path: '/health', who: 'none' },
  { method: 'get', path: '/health/live', who: 'none' },
  { method: 'get', path: '/health/ready', who: 'none' },
  { method: 'get', path: '/metrics', who: 'none' },
];

export const nameOf = (endpoint: Endpoint) => `${endpoint.method.toUpperCase()} ${endpoint.path}`;
