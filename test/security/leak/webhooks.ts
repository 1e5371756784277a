// Webhooks in the leak property: every WEBHOOK_EVERY-th run's tenant gets a webhook subscribed to every event type,
// delivering to a local receiver. When the next run starts (or after the last), that tenant is renamed, its last
// event, and once the receiver has the rename every event before it has been delivered (deliveries go in log order);
// then the webhook is deleted, so that at most one follows the log at a time. After the runs, every delivered request is
// checked: the body is exactly `{ id, type, tenant_id, created_at, data: { id, type?, actor_id } }` of the tenant,
// signed with its webhook's secret, and neither the body nor a header holds a window of any token's data or evaluated
// mask, a fingerprint, a metadata value, an API key, a signing secret or a configuration value of the run. A receiver
// is entitled to nothing: no window counts as known.
import { createHmac } from 'node:crypto';
import { WEBHOOK_EVENT_TYPES } from '@vault/domain';
import { startLocalHttpServer, type LocalHttpServer, type ReceivedRequest } from '../../support/local-http-server';
import { withoutIdsAndTimes } from '../../support/random-parts';
import { TOKEN_TYPES, type TokenModel } from './model';
import { findWindow, maskWindowsOf, searchedTexts } from './windows';

/** One run in this many gets a webhook: enough deliveries to cover every command, a few seconds in all. */
export const WEBHOOK_EVERY = 25;

/** What a run (world.ts) tells of itself for the check: its tokens, and the secrets it made or sent. */
export interface WebhookWorld {
  readonly tokens: readonly TokenModel[];
  webhookSecrets(): { keys: string[]; signingSecrets: string[]; configuration: string[]; metadata: string[] };
}

export interface WatchedTenant {
  tenantId: string;
  managementKey: string;
  webhookId: string;
  signingSecret: string;
  /** The receiver's path for this tenant's deliveries. */
  path: string;
  world: WebhookWorld | null;
  /** Its run is over: renamed, its deliveries all in, and the webhook deleted. */
  closed: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The operator's tools and the vault's own actors: the only actors that are no application id. */
const TOOL = /^[a-z][a-z0-9_-]{0,40}$/;
/** Headers the vault does not write from the event: the receiver's host (ours), and the length of the body checked. */
const NOT_SEARCHED = new Set(['host', 'content-length', 'svc-webhook-signature']);

export const startWebhookReceiver = (): Promise<LocalHttpServer> =>
  startLocalHttpServer((_request, response) => {
    response.statusCode = 204;
    response.end();
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What no delivery may hold, gathered from the watched runs. */
const secretsOf = (worlds: readonly WebhookWorld[]) => {
  const windows = new Map<string, string>();
  const exact = new Map<string, string>();
  const verbatim = new Map<string, string>();
  for (const world of worlds) {
    const secrets = world.webhookSecrets();
    world.tokens.forEach((token, t) => {
      for (const [v, version] of token.versions.entries()) {
        for (const w of version.windows) windows.set(w, `a window of T${t}'s data (version ${v})`);
        for (const masked of version.masks) for (const w of maskWindowsOf(masked)) if (!windows.has(w)) windows.set(w, `a window of T${t}'s mask ${JSON.stringify(masked)}`);
      }
      if (token.fingerprint) exact.set(token.fingerprint, `T${t}'s fingerprint`);
    });
    for (const key of secrets.keys) exact.set(key, 'an API key');
    for (const secret of secrets.signingSecrets) exact.set(secret, 'a signing secret');
    for (const value of secrets.configuration) if (value.length >= 4) exact.set(value, `a configuration value ${JSON.stringify(value)}`);
    // Metadata values are upper-case letters (token-choices.ts): nothing the vault writes to a receiver is upper-case.
    for (const value of secrets.metadata) verbatim.set(value, `a metadata value ${JSON.stringify(value)}`);
  }
  return { windows, exact, verbatim };
};

/** Everything wrong with one delivered request, or null. */
const problemOf = (request: ReceivedRequest, tenant: WatchedTenant, secrets: ReturnType<typeof secretsOf>): string | null => {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(request.body);
  } catch {
    return 'the body is no JSON';
  }
  const data = body.data as Record<string, unknown> | undefined;
  if (Object.keys(body).sort().join() !== 'created_at,data,id,tenant_id,type') return `the body's keys are ${Object.keys(body).join(', ')}`;
  if (!data || typeof data !== 'object' || Object.keys(data).some((key) => !['id', 'type', 'actor_id'].includes(key))) return `data is ${JSON.stringify(data)}`;
  if (typeof body.id !== 'string' || !UUID.test(body.id)) return 'id is no UUID';
  if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(body.type as string)) return `type ${JSON.stringify(body.type)} is no event type`;
  if (body.tenant_id !== tenant.tenantId) return `tenant_id ${JSON.stringify(body.tenant_id)} is not the webhook's tenant`;
  if (typeof body.created_at !== 'string' || !ISO.test(body.created_at)) return 'created_at is no timestamp';
  if (typeof data.id !== 'string' || !UUID.test(data.id)) return 'data.id is no UUID';
  if ('type' in data && !(String(body.type).startsWith('token.') && (TOKEN_TYPES as readonly string[]).includes(data.type as string))) return `data.type ${JSON.stringify(data.type)}`;
  if (typeof data.actor_id !== 'string' || !(UUID.test(data.actor_id) || TOOL.test(data.actor_id))) return `data.actor_id ${JSON.stringify(data.actor_id)}`;
  if (request.headers['svc-webhook-id'] !== body.id || request.headers['svc-webhook-event'] !== body.type) return 'the id and event headers are not the body\'s';
  const signature = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['svc-webhook-signature'] ?? ''));
  if (!signature || createHmac('sha256', tenant.signingSecret).update(`${signature[1]}.${request.body}`).digest('hex') !== signature[2]) {
    return 'the signature is not the HMAC of the body under the signing secret';
  }

  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !NOT_SEARCHED.has(name)) as Array<[string, string | string[]]>);
  const raw = `${request.body}\n${JSON.stringify(request.headers)}`;
  for (const [secret, what] of secrets.exact) if (raw.toLowerCase().includes(secret.toLowerCase())) return `it holds ${what}`;
  const found = findWindow(searchedTexts({ text: request.body, body, headers }), secrets.windows);
  if (found) return `it holds "${found.window}" (folded), ${found.what}, in …${found.context}…`;
  const plain = [withoutIdsAndTimes(request.body), JSON.stringify(headers)];
  for (const [value, what] of secrets.verbatim) if (plain.some((text) => text.includes(value))) return `it holds ${what}`;
  return null;
};

/** The last of a tenant's deliveries: the rename that closes its run. */
const hasRename = (receiver: LocalHttpServer, tenant: WatchedTenant): boolean =>
  receiver.received.some((r) => r.path === tenant.path && r.body.includes('"type":"tenant.updated"') && r.body.includes(`"id":"${tenant.tenantId}"`));

/**
 * Ends a watched run: `rename` renames its tenant, this waits until the receiver has the rename (so every earlier event
 * too), then `remove` deletes the webhook.
 */
export const closeWatched = async (
  receiver: LocalHttpServer,
  tenant: WatchedTenant,
  requests: { rename(tenant: WatchedTenant): Promise<void>; remove(tenant: WatchedTenant): Promise<void> },
  timeoutMs = 15_000,
): Promise<void> => {
  if (tenant.closed) return;
  const started = Date.now();
  await requests.rename(tenant);
  while (!hasRename(receiver, tenant)) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`webhooks: the last event did not reach the receiver within ${timeoutMs} ms for ${tenant.path} (${receiver.received.filter((r) => r.path === tenant.path).length} received)`);
    }
    await sleep(20);
  }
  await requests.remove(tenant);
  tenant.closed = true;
};

/**
 * Closes the watched runs still open (closeWatched), then checks every delivery.
 * Returns a summary line; throws with every problem found.
 */
export const checkWebhookDeliveries = async (
  receiver: LocalHttpServer,
  watched: readonly WatchedTenant[],
  requests: Parameters<typeof closeWatched>[2],
  timeoutMs = 15_000,
): Promise<string> => {
  if (watched.length === 0) throw new Error('no run had a webhook: the webhook check proves nothing');
  const started = Date.now();
  for (const tenant of watched) await closeWatched(receiver, tenant, requests, timeoutMs);
  const secrets = secretsOf(watched.flatMap((tenant) => (tenant.world ? [tenant.world] : [])));
  const problems: string[] = [];
  const types = new Map<string, number>();
  for (const tenant of watched) {
    for (const request of receiver.received.filter((r) => r.path === tenant.path)) {
      const problem = problemOf(request, tenant, secrets);
      if (problem) problems.push(`${tenant.path}: ${problem}: ${request.body.slice(0, 400)} ${JSON.stringify(request.headers).slice(0, 400)}`);
      const type = /"type":"([a-z_.]+)"/.exec(request.body)?.[1] ?? '?';
      types.set(type, (types.get(type) ?? 0) + 1);
    }
  }
  const strays = receiver.received.filter((r) => !watched.some((tenant) => tenant.path === r.path));
  if (strays.length) problems.push(`${strays.length} deliveries to no watched webhook's path, e.g. ${strays[0].path}`);
  if (problems.length) throw new Error(`webhook deliveries broke the leak property:\n${problems.slice(0, 20).join('\n')}`);
  const summary = [...types].sort().map(([type, n]) => `${type}×${n}`).join(' ');
  return `webhooks: ${watched.length} tenants, ${receiver.received.length} deliveries checked (${summary}), ${secrets.windows.size} windows, ${secrets.exact.size + secrets.verbatim.size} secrets, ${((Date.now() - started) / 1000).toFixed(1)} s`;
};
