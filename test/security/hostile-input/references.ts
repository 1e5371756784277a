// The keys and resources the hostile-input fuzzer attacks, by name. Stable ones are made once and no request may change
// them; victims are made again after any success that may have changed or deleted them, so every request meets a
// resource in its first state and success paths run to the end instead of ending in 404s.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { MANAGEMENT_PERMISSIONS } from '@vault/domain';
import { VaultBus } from '@vault/nest';
import { createApplication, createTenant, TestApp } from '../../support/test-app';

const STABLE = [
  'adminKey',
  'privateKey',
  'application',
  'token',
  'formula',
  'reactor',
  'destination',
  'unreachable',
  'proxy',
  'proxyKey',
  'anonymousProxyKey',
  'useKey',
  'proxyToken',
  'webhook',
] as const;
const VICTIMS = [
  'tenantKey',
  'patchToken',
  'deleteToken',
  'putApplication',
  'deleteApplication',
  'regenerateApplication',
  'putFormula',
  'aliasFormula',
  'deleteFormula',
  'putReactor',
  'patchReactor',
  'deleteReactor',
  'putProxy',
  'patchProxy',
  'deleteProxy',
  'putWebhook',
  'deleteWebhook',
] as const;
export type Ref = (typeof STABLE)[number] | (typeof VICTIMS)[number];

const REFS: readonly string[] = [...STABLE, ...VICTIMS];
/** `⟨token⟩` in a template: the current value of that reference. */
const REF_MARK = /⟨(\w+)⟩/g;

export const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];

// Reactors run on the official Mask Email formula (imported into the tenant), whose id is fixed in its file.
export const MASK_EMAIL = JSON.parse(readFileSync(join(__dirname, '../../../formulas/official/mask-email.json'), 'utf8'));
export const PNG = `data:image/png;base64,${MASK_EMAIL.icon.match(/base64,(.+)$/)![1]}`;

/** The data of the stable token, which detokenize and react bodies name. */
export const STABLE_TOKEN_DATA = { a: 'abcd1234', n: 1 };

/**
 * The stable reactor's formula: nested request parameters (`card.holder.name`), a configuration, and code that answers
 * without quoting its args in an error and tokenizes one of them.
 */
export const REACT_FORMULA = {
  name: 'Fuzz react',
  description: 'answers with counts and tokenizes the holder',
  type: 'private',
  code: [
    'module.exports = async function ({ args, configuration }) {',
    '  const holder = args.card && args.card.holder ? args.card.holder.name : null;',
    '  return { raw: { ok: true, region: configuration.region, keys: Object.keys(args).length }, tokenize: { holder: holder === undefined ? null : holder } };',
    '};',
  ].join('\n'),
  configuration: [
    { name: 'region', description: 'where', type: 'string' },
    { name: 'retries', description: 'how often', type: 'number' },
  ],
  request_parameters: [
    { name: 'card.number', description: 'PAN', type: 'string', optional: false },
    { name: 'card.holder.name', description: 'holder', type: 'string', optional: true },
    { name: 'amount', description: 'in cents', type: 'number', optional: true },
  ],
};
const VICTIM_FORMULA = { ...REACT_FORMULA, name: 'Fuzz victim', icon: PNG };

/**
 * What the proxies hide and no answer, log line or metric may hold: their configuration's secret (a request transform
 * sends it to the destination as a header, which an echoing destination hands back), and the data of a token the
 * proxies' invoking key may use but not read.
 */
export const PROXY_SECRETS = { configuration: 'Zq9CfgHIDDENxKWTPMV', tokenData: 'Zq9TokDATAxHNBVQRZ' };

/** The stable proxy: its code transform puts the configuration's secret into the request, for an echo to hand back. */
const proxyBody = (destination: string, application: string, requireAuth: boolean) => ({
  name: requireAuth ? 'Fuzz proxy' : 'Fuzz anonymous proxy',
  destination_url: `${destination}/base`,
  request_transforms: [
    {
      type: 'code',
      code: "module.exports = async ({ args, configuration }) => ({ headers: { ...args.headers, authorization: 'Bearer ' + configuration.api_key } });",
    },
    { type: 'tokenize', fields: [{ json_path: '$.card.number', token: { type: 'card_number', containers: ['/pci/'] } }] },
  ],
  response_transforms: [{ type: 'mask', fields: ['$.echo.card'] }],
  application: { id: application },
  configuration: { api_key: PROXY_SECRETS.configuration },
  require_auth: requireAuth,
});

export interface ReferenceOptions {
  /** The proxies' destination (on VAULT_PROXY_ALLOWED_HOSTS), without a trailing slash. */
  destination: string;
  /** An allowed destination where nothing listens. */
  unreachable: string;
}
/** A webhook to an allowed host where nothing listens: its deliveries fail and wait, and reach no one. */
const webhookBody = (unreachable: string) => ({ name: 'Fuzz webhook', url: `${unreachable}/hooks`, events: ['token.created', 'tenant.updated'] });
const VICTIM_REACTOR = { name: 'Fuzz victim', formula: { id: MASK_EMAIL.id }, configuration: { mask_character: '*', reveal_domain: true } };

export class References {
  private readonly values = new Map<Ref, string>();
  private readonly spent = new Set<Ref>();
  /** How many of each victim were made. */
  readonly made = new Map<Ref, number>();

  private constructor(private readonly make: Record<(typeof VICTIMS)[number], () => Promise<string>>) {}

  static async start(test: TestApp, options: ReferenceOptions): Promise<References> {
    const admin = await createApplication(test, { name: 'fuzz admin', type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] });
    const holder = await createApplication(test, {
      name: 'fuzz tokens',
      type: 'private',
      permissions: TOKEN_PERMISSIONS,
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: TOKEN_PERMISSIONS }],
    });
    await test.app.get(VaultBus).execute(new ImportOfficialFormulaCommand(MASK_EMAIL, { type: 'operator', id: 'fuzz' }, 'fuzz'));
    const created = async (key: string, path: string, body: object): Promise<string> => {
      const { status, body: answer } = await test.http().post(path).set('SVC-API-KEY', key).send(body);
      if (status !== 201) throw new Error(`set-up: POST ${path}: ${status} ${JSON.stringify(answer)}`);
      return answer.id;
    };
    // A tenant has at most VAULT_WEBHOOKS_PER_TENANT webhooks, and the fuzzed POSTs make them too: when the tenant is
    // full, every webhook but the stable one is deleted to make room for the next victim.
    const keptWebhooks = new Set<string>();
    const victimWebhook = async (): Promise<string> => {
      const body = webhookBody(options.unreachable);
      const { status, body: answer } = await test.http().post('/webhooks').set('SVC-API-KEY', admin.key).send(body);
      if (status === 201) return answer.id;
      if (status !== 422) throw new Error(`set-up: POST /webhooks: ${status} ${JSON.stringify(answer)}`);
      const listed = await test.http().get('/webhooks?size=100').set('SVC-API-KEY', admin.key);
      for (const { id } of listed.body.data as Array<{ id: string }>) {
        if (!keptWebhooks.has(id)) await test.http().delete(`/webhooks/${id}`).set('SVC-API-KEY', admin.key);
      }
      return created(admin.key, '/webhooks', body);
    };
    const victimApplication = async () => (await createApplication(test, { name: 'fuzz victim', type: 'private', permissions: ['token:read'] }, admin.key)).id;
    const refs = new References({
      tenantKey: async () => (await createTenant(test, 'fuzz victim tenant')).management_key,
      patchToken: () => created(holder.key, '/tokens', { type: 'social_security_number', data: '123-45-6789', metadata: { customer: 'acme' } }),
      deleteToken: () => created(holder.key, '/tokens', { type: 'token', data: 'victim' }),
      putApplication: victimApplication,
      deleteApplication: victimApplication,
      regenerateApplication: victimApplication,
      putFormula: () => created(admin.key, '/reactor-formulas', VICTIM_FORMULA),
      aliasFormula: () => created(admin.key, '/reactor-formulas', VICTIM_FORMULA),
      deleteFormula: () => created(admin.key, '/reactor-formulas', VICTIM_FORMULA),
      putReactor: () => created(admin.key, '/reactors', VICTIM_REACTOR),
      patchReactor: () => created(admin.key, '/reactors', VICTIM_REACTOR),
      deleteReactor: () => created(admin.key, '/reactors', VICTIM_REACTOR),
      putProxy: () => created(admin.key, '/proxies', { ...proxyBody(options.destination, holder.id, true), name: 'Fuzz victim' }),
      patchProxy: () => created(admin.key, '/proxies', { ...proxyBody(options.destination, holder.id, true), name: 'Fuzz victim' }),
      deleteProxy: () => created(admin.key, '/proxies', { ...proxyBody(options.destination, holder.id, true), name: 'Fuzz victim' }),
      putWebhook: victimWebhook,
      deleteWebhook: victimWebhook,
    });
    const formula = await created(admin.key, '/reactor-formulas', REACT_FORMULA);
    const proxy = async (requireAuth: boolean) => {
      const { status, body } = await test.http().post('/proxies').set('SVC-API-KEY', admin.key).send(proxyBody(options.destination, holder.id, requireAuth));
      if (status !== 201) throw new Error(`set-up: POST /proxies: ${status} ${JSON.stringify(body)}`);
      return body as { id: string; key: string };
    };
    const authProxy = await proxy(true);
    const anonymousProxy = await proxy(false);
    // May use every token, and read none: what it puts in by expression must never come back to it.
    const user = await createApplication(
      test,
      { name: 'fuzz proxy user', type: 'private', permissions: ['token:use'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:use'] }] },
      admin.key,
    );
    const stable: Record<(typeof STABLE)[number], string> = {
      adminKey: admin.key,
      privateKey: holder.key,
      application: holder.id,
      token: await created(holder.key, '/tokens', { type: 'token', data: STABLE_TOKEN_DATA }),
      formula,
      reactor: await created(admin.key, '/reactors', { name: 'Fuzz react', formula: { id: formula }, configuration: { region: 'eu', retries: 3 } }),
      destination: options.destination,
      unreachable: options.unreachable,
      proxy: authProxy.id,
      proxyKey: authProxy.key,
      anonymousProxyKey: anonymousProxy.key,
      useKey: user.key,
      proxyToken: await created(holder.key, '/tokens', { type: 'token', data: PROXY_SECRETS.tokenData }),
      webhook: await victimWebhook(),
    };
    keptWebhooks.add(stable.webhook);
    for (const [ref, value] of Object.entries(stable)) refs.values.set(ref as Ref, value);
    return refs;
  }

  /** The current value of `ref`, made anew first when it is missing or spent. */
  async ready(ref: Ref): Promise<string> {
    if (!this.values.has(ref) || this.spent.has(ref)) {
      const make = this.make[ref as (typeof VICTIMS)[number]];
      if (!make) throw new Error(`the stable reference ${ref} was spent`);
      this.values.set(ref, await make());
      this.spent.delete(ref);
      this.made.set(ref, (this.made.get(ref) ?? 0) + 1);
    }
    return this.values.get(ref)!;
  }

  /** Makes every reference `text` names ready. */
  async readyIn(text: string): Promise<void> {
    for (const [, name] of text.matchAll(REF_MARK)) if (REFS.includes(name)) await this.ready(name as Ref);
  }

  /** `text` with each reference's mark replaced by its current value (call readyIn first). */
  resolve(text: string): string {
    return text.replace(REF_MARK, (mark, name: string) => (REFS.includes(name) ? this.values.get(name as Ref) ?? mark : mark));
  }

  /** A request may have changed or deleted `ref`: the next one that needs it gets a new one. */
  spend(ref: Ref): void {
    if ((STABLE as readonly string[]).includes(ref)) throw new Error(`the stable reference ${ref} cannot be spent`);
    this.spent.add(ref);
  }
}
