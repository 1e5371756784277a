// One run of the leak property: a fresh tenant, its applications, the model of its tokens, and the checks every response
// goes through. Two auditor applications (reveal on /, and no rules = mask on /) read each written token back, so the
// model tracks the API's actual data and evaluated mask; their own responses are not checked (they may see everything).
import type fc from 'fast-check';
import { WEBHOOK_EVENT_TYPES } from '@vault/domain';
import type { Test } from 'supertest';
import { createApplication, TestApp, createTenant } from '../../support/test-app';
import { stats } from './branches';
import { ECHO_FORMULA } from './echo-formula';
import type { EchoDestination } from './proxy-echo';
import { leakIn } from './invariant';
import { WEBHOOK_EVERY, type WatchedTenant } from './webhooks';
import { AppModel, accrue, currentLevel, newAppModel } from './knowledge';
import {
  AppSpec,
  currentVersion,
  fingerprintInput,
  Level,
  newVersion,
  RuleSpec,
  searchValues,
  serialize,
  TokenModel,
  TokenType,
} from './model';

/** VAULT_LEAK_INVARIANT_ONLY=1: only the leak invariant (and no 5xx) fails a run; predicted statuses and views do not. */
export const INVARIANT_ONLY = !!process.env.VAULT_LEAK_INVARIANT_ONLY;

export interface Reply {
  status: number;
  text: string;
  body: unknown;
  headers: Record<string, string>;
}

/** Thrown for every violated expectation; the message carries the run's trace. `kind` says which invariant. */
export class LeakCheckFailure extends Error {
  constructor(
    readonly kind: 'LEAK' | 'STATUS' | '5XX' | 'VIEW' | 'MODEL',
    message: string,
  ) {
    super(message);
    this.name = `LeakCheckFailure[${kind}]`;
  }
}

/** A model-based command of the leak property: the world is both the model and the system under test. */
export type Cmd = fc.AsyncCommand<World, World>;

export const clip = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);
const describeRule = (r: RuleSpec) => `{p${r.priority} ${r.container} ${r.transform} [${r.permissions.map((p) => p.slice(6)).join(',')}]}`;
export const describeApp = (spec: AppSpec) =>
  spec.rules.length ? `rules ${spec.rules.map(describeRule).join(' ')}` : `no rules, permissions [${spec.permissions.map((p) => p.slice(6)).join(',')}] (mask on /)`;

/** The rules of the application a reactor may tokenize its result as: create and reveal everywhere. */
export const REACTOR_APPLICATION: AppSpec = {
  permissions: ['token:create', 'token:read'],
  rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
};

/** The management key's view: it holds no token permission, so no token data is news it may get. */
const MANAGEMENT = newAppModel(-1, { permissions: [], rules: [] }, 'management', '');

export interface WorldOptions {
  /** URL of the echo destination the reactor's code may fetch (on VAULT_REACTOR_ALLOWED_HOSTS). */
  echoUrl: string;
  /** The proxies' destination (proxy-echo.ts, on VAULT_PROXY_ALLOWED_HOSTS) and the URL proxies send to. */
  proxy: { destination: EchoDestination; url: string };
  /**
   * Every WEBHOOK_EVERY-th run's webhook: the URL it delivers to for a path (a receiver on VAULT_WEBHOOK_ALLOWED_HOSTS),
   * and how the run before is closed (webhooks.ts closeWatched) when the next one starts.
   */
  webhooks?: { url(path: string): string; close(tenant: WatchedTenant): Promise<void> };
}

let tenants = 0;

/** The runs' tenants that have a webhook, in the order they were made (webhooks.ts checks their deliveries). */
export const watchedTenants: WatchedTenant[] = [];


export class World {
  readonly tokens: TokenModel[] = [];
  readonly trace: string[] = [];
  /** Whoever invokes an anonymous proxy: it knows what it sent, and no rule entitles it to anything. */
  readonly anonymous: AppModel = newAppModel(-2, { permissions: [], rules: [] }, 'anonymous', '');
  private step = 0;
  private salts = 0;
  private formula: string | null = null;
  private readonly reactors = new Map<'own' | 'application', string>();
  /** What the management key's writes made or sent that no webhook delivery may hold: keys, configuration values. */
  private readonly madeKeys = new Set<string>();
  private readonly configurationValues = new Set<string>();
  /** Every metadata value a token had, as the auditors read it. */
  private readonly metadataValues = new Set<string>();
  private watched: WatchedTenant | null = null;

  private constructor(
    private readonly test: TestApp,
    readonly apps: AppModel[],
    private readonly management: string,
    private readonly revealAuditor: string,
    private readonly maskAuditor: string,
    private readonly seeder: string,
    readonly options: WorldOptions,
  ) {}

  static async create(test: TestApp, specs: readonly AppSpec[], options: WorldOptions): Promise<World> {
    const open = watchedTenants.at(-1);
    if (open && !open.closed) await options.webhooks?.close(open);
    const n = ++tenants;
    const tenant = await createTenant(test, `leak-${n}`, { type: 'operator', id: 'leak-property' }, `leak-${n}`);
    const key = tenant.management_key;
    // First, so that the receiver hears of every write of the run, the applications' creates included.
    let watched: WatchedTenant | null = null;
    if (options.webhooks && n % WEBHOOK_EVERY === 1) {
      const path = `/hooks/${n}`;
      const hook = await test.http().post('/webhooks').set('SVC-API-KEY', key).send({ name: `leak-${n}`, url: options.webhooks.url(path), events: WEBHOOK_EVENT_TYPES });
      if (hook.status !== 201) throw new Error(`the run's webhook was refused: ${hook.status} ${hook.text}`);
      watched = { tenantId: tenant.tenant_id, managementKey: key, webhookId: hook.body.id, signingSecret: hook.body.signing_secret, path, world: null, closed: false };
      watchedTenants.push(watched);
    }
    const apps: AppModel[] = [];
    for (const [index, spec] of specs.entries()) {
      const created = await createApplication(test, applicationBody(index, spec), key);
      apps.push(newAppModel(index, spec, created.id, created.key));
    }
    const reveal = await createApplication(
      test,
      { name: 'reveal-auditor', type: 'private', permissions: ['token:read'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'] }] },
      key,
    );
    const mask = await createApplication(test, { name: 'mask-auditor', type: 'private', permissions: ['token:read'] }, key);
    // Creates the run's initial tokens; like the auditors, it is not one of the generated applications.
    const seeder = await createApplication(
      test,
      { name: 'seeder', type: 'private', permissions: ['token:create'], rules: [{ priority: 1, container: '/', transform: 'redact', permissions: ['token:create'] }] },
      key,
    );
    const world = new World(test, apps, key, reveal.key, mask.key, seeder.key, options);
    if (watched) {
      watched.world = world;
      world.watched = watched;
    }
    apps.forEach((app) => world.trace.push(`app${app.index}: ${describeApp(app.spec)}`));
    return world;
  }

  /** What a webhook of this run's tenant must never be sent, besides its tokens' data, masks and fingerprints. */
  webhookSecrets(): { keys: string[]; signingSecrets: string[]; configuration: string[]; metadata: string[] } {
    return {
      keys: [this.management, this.revealAuditor, this.maskAuditor, this.seeder, ...this.apps.map((app) => app.key), ...this.madeKeys],
      signingSecrets: this.watched ? [this.watched.signingSecret] : [],
      configuration: [...this.configurationValues],
      metadata: [...this.metadataValues],
    };
  }

  /** A run-unique number for dataFor. */
  nextSalt(): number {
    return ++this.salts;
  }

  app(n: number): AppModel {
    return this.apps[n % this.apps.length];
  }

  /** The n-th application that satisfies `wanted`, else the n-th of all. */
  appWhere(n: number, wanted: (app: AppModel) => boolean): AppModel {
    const fitting = this.apps.filter(wanted);
    return fitting.length ? fitting[n % fitting.length] : this.app(n);
  }

  token(n: number): TokenModel {
    return this.tokens[n % this.tokens.length];
  }

  byId(id: unknown): TokenModel | undefined {
    return typeof id === 'string' ? this.tokens.find((t) => t.id === id.toLowerCase()) : undefined;
  }

  label(token: TokenModel | string | undefined): string {
    const t = typeof token === 'string' ? this.byId(token) : token;
    if (!t) return typeof token === 'string' ? `(unknown ${token})` : '(none)';
    return `T${this.tokens.indexOf(t)}`;
  }

  /** Knowledge accrues before every request: what each application is entitled to see right now, it knows from now on. */
  beginStep(): void {
    this.step++;
    accrue(this.apps, this.tokens);
  }

  levelsOf(app: AppModel): Map<string, Level> {
    const levels = new Map<string, Level>();
    for (const token of this.tokens) levels.set(token.id, currentLevel(app, token));
    return levels;
  }

  private async send(key: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Reply> {
    const http = this.test.http();
    let req: Test;
    if (method === 'GET') req = http.get(path);
    else if (method === 'DELETE') req = http.delete(path);
    else if (method === 'POST') req = http.post(path);
    else if (method === 'PUT') req = http.put(path);
    else req = http.patch(path);
    req = req.set('SVC-API-KEY', key);
    if (method === 'PATCH') req = req.set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(body));
    else if (body !== undefined) req = req.set('Content-Type', 'application/json').send(JSON.stringify(body));
    const res = await req;
    const reply: Reply = { status: res.status, text: res.text ?? '', body: res.body, headers: res.headers as Record<string, string> };
    stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
    if (res.status >= 500) this.fail('5XX', `${method} ${path} answered ${res.status}: ${clip(reply.text, 2000)}`);
    return reply;
  }

  /**
   * A request the caller builds itself (a proxy invocation: any method, headers and body), traced and counted. Its
   * status is the command's to judge: a destination may answer a 5xx of its own.
   */
  async raw(who: string, what: string, build: (http: ReturnType<TestApp['http']>) => Test): Promise<Reply> {
    stats.requests++;
    this.trace.push(`#${this.step} ${who} ${what}`);
    const res = await build(this.test.http());
    const bytes: Buffer = Buffer.isBuffer(res.body) ? res.body : Buffer.from(res.text ?? '', 'utf8');
    const text = bytes.toString('utf8');
    let body: unknown = {};
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: the text is all there is.
    }
    const reply: Reply = { status: res.status, text, body, headers: res.headers as Record<string, string> };
    stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
    this.trace.push(`   → ${reply.status} ${clip(reply.text, 600)}`);
    return reply;
  }

  /** A request by one of the generated applications: traced, and checked for 5xx. */
  async act(app: AppModel, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Reply> {
    stats.requests++;
    this.trace.push(`#${this.step} app${app.index} ${method} ${this.shortPath(path)}${body === undefined ? '' : ` ${clip(JSON.stringify(body), 600)}`}`);
    const reply = await this.send(app.key, method, path, body);
    this.trace.push(`   → ${reply.status} ${clip(reply.text, 600)}`);
    return reply;
  }

  /**
   * A request with the tenant's management key (application changes, the reactor fixture). Its answers are checked
   * too: the management key holds no token permission, so any token data in them is a leak.
   */
  async manage(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Reply> {
    this.trace.push(`#${this.step} management ${method} ${this.shortPath(path)}${body === undefined ? '' : ` ${clip(JSON.stringify(body), 600)}`}`);
    const reply = await this.send(this.management, method, path, body);
    this.trace.push(`   → ${reply.status} ${clip(reply.text, 300)}`);
    const configuration = (body as { configuration?: unknown } | undefined)?.configuration;
    if (configuration !== undefined) for (const value of stringLeaves(configuration)) this.configurationValues.add(value);
    const made = (reply.body as { key?: unknown } | undefined)?.key;
    if (typeof made === 'string') this.madeKeys.add(made);
    this.checkLeaks(MANAGEMENT, reply, new Map());
    return reply;
  }

  /**
   * The run's reactors of the echo formula (echo-formula.ts), created on first use: `own` tokenizes its result as the
   * caller; `application` as an application of its own that may create and reveal everywhere (REACTOR_APPLICATION), so
   * only the cap on what the invoking caller is shown stands between the caller and the data its args used.
   */
  async reactorId(kind: 'own' | 'application'): Promise<string> {
    const known = this.reactors.get(kind);
    if (known) return known;
    if (!this.formula) {
      const formula = await this.manage('POST', '/reactor-formulas', { name: 'leak echo', type: 'private', ...ECHO_FORMULA });
      if (formula.status !== 201) this.fail('MODEL', `the echo formula was refused: ${formula.status} ${clip(formula.text)}`);
      this.formula = (formula.body as { id: string }).id;
    }
    let application: { id: string } | undefined;
    if (kind === 'application') {
      const created = await this.manage('POST', '/applications', { name: 'reactor application', type: 'private', ...REACTOR_APPLICATION });
      if (created.status !== 201) this.fail('MODEL', `the reactor's application was refused: ${created.status} ${clip(created.text)}`);
      application = { id: (created.body as { id: string }).id };
    }
    const body = { name: `leak echo ${kind}`, formula: { id: this.formula }, configuration: { echo_url: this.options.echoUrl }, ...(application ? { application } : {}) };
    const reactor = await this.manage('POST', '/reactors', body);
    if (reactor.status !== 201) this.fail('MODEL', `the echo reactor was refused: ${reactor.status} ${clip(reactor.text)}`);
    const id = (reactor.body as { id: string }).id;
    this.reactors.set(kind, id);
    return id;
  }

  private shortPath(path: string): string {
    return path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, (id) => `${this.label(id)}(${id})`);
  }

  note(line: string): void {
    this.trace.push(`   ${line}`);
  }

  fail(kind: LeakCheckFailure['kind'], message: string): never {
    const mapping = this.tokens.map((t, i) => `T${i} = ${t.id} ${t.type} ${t.alive ? '' : '(deleted) '}in ${t.containers.join(',')} data ${clip(serialize(t.type, t.data), 200)}`);
    throw new LeakCheckFailure(kind, `${kind}: ${message}\n--- run trace ---\n${this.trace.join('\n')}\n--- tokens ---\n${mapping.join('\n')}`);
  }

  /**
   * The invariant (invariant.ts). `levels` are the caller's entitlements before the request; `supplied` are tokens whose
   * new data the caller sent in this very request; `thorough` decodes the answer layer by layer (decodings.ts), for
   * answers a destination wrote.
   */
  checkLeaks(app: AppModel, reply: Reply, levels: Map<string, Level>, supplied: ReadonlySet<string> = new Set(), thorough = false): void {
    const leak = leakIn(this.tokens, app, reply, levels, supplied, thorough);
    if (leak) this.fail('LEAK', leak);
  }

  /** A predicted status, search result or view that did not come: a failure, unless only the invariant is checked. */
  mismatch(kind: 'STATUS' | 'VIEW', message: string): void {
    if (INVARIANT_ONLY) {
      stats.ignoredMismatches++;
      if (stats.ignoredSamples.size < 10) stats.ignoredSamples.add(`${kind}: ${clip(message.replace(/\s+/g, ' '), 240)}`);
      this.trace.push(`   (ignored ${kind}: ${clip(message, 300)})`);
      return;
    }
    this.fail(kind, message);
  }

  expectStatus(reply: Reply, allowed: readonly number[], why: string): void {
    if (!allowed.includes(reply.status)) {
      this.mismatch('STATUS', `expected ${allowed.join(' or ')} (${why}), got ${reply.status}: ${clip(reply.text, 2000)}`);
    }
  }

  /** reveal → the plaintext; mask → the evaluated mask, absent without a mask; redact → absent. */
  expectView(view: unknown, token: TokenModel, transform: RuleSpec['transform'], what: string): void {
    const v = view as Record<string, unknown>;
    const has = 'data' in v;
    let ok: boolean;
    if (transform === 'reveal') ok = has && JSON.stringify(v.data) === JSON.stringify(token.data);
    else if (transform === 'mask') ok = token.masked === null ? !has : v.data === token.masked;
    else ok = !has;
    if (!ok) {
      this.mismatch('VIEW', `${what}: ${this.label(token)} should be shown with ${transform}, got data ${has ? clip(JSON.stringify(v.data), 300) : '(absent)'}`);
    }
  }

  /** Creates one of the run's initial tokens (no generated application supplied its data). Invalid ones are skipped. */
  async seed(body: Record<string, unknown>): Promise<void> {
    stats.auditorRequests++;
    const reply = await this.send(this.seeder, 'POST', '/tokens', body);
    if (reply.status !== 201) {
      this.trace.push(`seed ${clip(JSON.stringify(body), 600)} → ${reply.status} (skipped)`);
      return;
    }
    const token = await this.sync((reply.body as { id: string }).id);
    this.trace.push(`seed ${this.label(token)} = ${clip(JSON.stringify(body), 600)}`);
  }

  /** Replaces an application's rules and permissions (the model's entitlements follow; what it knows stays known). */
  async changeRules(app: AppModel, spec: AppSpec): Promise<Reply> {
    const reply = await this.manage('PUT', `/applications/${app.id}`, { ...applicationBody(app.index, spec), rules: spec.rules });
    if (reply.status === 200) {
      app.spec = spec;
      // Caps held what the old rules showed; the new rules decide from here on.
      for (const token of this.tokens) token.caps.delete(app.index);
      this.trace.push(`app${app.index} now: ${describeApp(spec)}`);
    }
    return reply;
  }

  /**
   * Reads a token back as the auditors see it and brings the model up to date; `suppliers` sent its new data.
   * `opaque`: a reactor's token whose fingerprint is of a random value (tokenize.ts, id-only cap).
   */
  async sync(id: string, suppliers: readonly number[] = [], opaque = false): Promise<TokenModel> {
    stats.auditorRequests += 2;
    const revealed = await this.send(this.revealAuditor, 'GET', `/tokens/${id}`);
    if (revealed.status !== 200) this.fail('MODEL', `the reveal auditor cannot read ${id}: ${revealed.status} ${clip(revealed.text)}`);
    const masked = await this.send(this.maskAuditor, 'GET', `/tokens/${id}`);
    const view = revealed.body as Record<string, unknown>;
    const maskView = masked.body as Record<string, unknown>;
    const type = view.type as TokenType;
    let token = this.byId(id);
    if (!token) {
      token = {
        id: id.toLowerCase(),
        type,
        alive: true,
        containers: [],
        mask: null,
        search_indexes: [],
        fingerprint_expression: '',
        fingerprint: '',
        data: undefined,
        masked: null,
        maskTainted: false,
        versions: [],
        searchValues: new Set(),
        fingerprintInput: null,
        opaqueFingerprint: opaque ? (view.fingerprint as string) : null,
        caps: new Map(),
      };
      this.tokens.push(token);
    }
    const plaintext = serialize(type, view.data);
    if (suppliers.length || token.versions.length === 0 || currentVersion(token).plaintext !== plaintext) {
      token.versions.push(newVersion(type, view.data, suppliers));
      token.caps.clear();
    }
    token.data = view.data;
    token.containers = view.containers as string[];
    token.mask = (view.mask as string | undefined) ?? null;
    token.search_indexes = view.search_indexes as string[];
    token.fingerprint_expression = view.fingerprint_expression as string;
    token.fingerprint = view.fingerprint as string;
    token.masked = 'data' in maskView ? (maskView.data as string) : null;
    for (const value of stringLeaves(view.metadata ?? {})) this.metadataValues.add(value);
    if (token.masked !== null) currentVersion(token).masks.add(token.masked);
    token.searchValues = searchValues({ data: token.data, search_indexes: token.search_indexes });
    if (token.opaqueFingerprint !== null && token.opaqueFingerprint !== token.fingerprint) token.opaqueFingerprint = null;
    token.fingerprintInput =
      token.opaqueFingerprint === null ? fingerprintInput({ data: token.data, fingerprint_expression: token.fingerprint_expression }) : null;
    return token;
  }
}

/** Every string in a JSON value. */
const stringLeaves = (value: unknown, out: string[] = []): string[] => {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((item) => stringLeaves(item, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((item) => stringLeaves(item, out));
  return out;
};

const applicationBody = (index: number, spec: AppSpec) => ({
  name: `app${index}`,
  type: 'private',
  permissions: spec.permissions,
  ...(spec.rules.length ? { rules: spec.rules } : {}),
});
