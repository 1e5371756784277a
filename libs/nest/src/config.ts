// Configuration from the environment (the documented variables), validated once at start-up.
import { resolve } from 'node:path';
import { AllowedHosts, reactorChildUser, type ReactorChildUser, ReactorUserError } from '@vault/adapters';

export interface VaultConfig {
  port: number;
  /** HOST: the address the API listens on (default 127.0.0.1: this machine only; 0.0.0.0 for every interface). */
  host: string;
  dataDir: string;
  /** 'embedded' or an EventStoreDB connection string. */
  eventStore: string;
  /** 'embedded' or a Meilisearch URL. */
  search: string;
  meiliMasterKey: string | undefined;
  masterKey: string | undefined;
  /** VAULT_MASTER_KEY_PREVIOUS: during a master-key rotation, the key being replaced (tenant keys it still wraps open). */
  masterKeyPrevious: string | undefined;
  bootstrapKey: string | undefined;
  writeWaitMs: number;
  /** Requests per second allowed per API key (token bucket refill rate); burst is twice that. */
  rateLimitPerSecond: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** SQLite durability of the embedded event log and key store: `normal` survives a killed process, `full` power loss. */
  sync: 'normal' | 'full';
  /** How often the API deletes expired tokens (and shreds their keys); 0 disables the sweep. */
  expirySweepMs: number;
  /** inline: the API process runs the projector (default with the embedded read model); external: apps/projector does. */
  projector: 'inline' | 'external';
  /** Reactor invocations: wall time, heap, runs at once, hosts `fetch` may reach. */
  reactorTimeoutMs: number;
  reactorMemoryMb: number;
  reactorConcurrency: number;
  /** `host[:port]` entries, in the order given; empty: no network. */
  reactorAllowedHosts: string[];
  /** VAULT_REACTOR_USER: who reactor children become when the API runs as root; null: they stay this process's user. */
  reactorUser: ReactorChildUser | null;
  /** VAULT_AUDIT_ACCESS_RECORDS: record reads that show plaintext, token uses and reactor invocations. Off for benchmarking only. */
  auditAccessRecords: boolean;
  /** VAULT_AUDIT_RETENTION_DAYS: access records older than this many days leave the read model; null keeps them forever. */
  auditRetentionDays: number | null;
  /**
   * VAULT_EXPRESSION_BUDGET_MS: CPU time the caller-written expressions of one synchronous stretch may use (a token's
   * mask, fingerprint expression and search indexes share one).
   */
  expressionBudgetMs: number;
  /** VAULT_PROXY_ALLOWED_HOSTS: `host[:port]` entries proxies may send to; empty: no proxying. */
  proxyAllowedHosts: string[];
  /** VAULT_PROXY_TIMEOUT_MS: how long a proxy's destination has to answer in whole (else 504). */
  proxyTimeoutMs: number;
  /** VAULT_PROXY_ANONYMOUS_RATE_PER_SECOND: invocations without an API key allowed per proxy key and client address. */
  proxyAnonymousRatePerSecond: number;
  /** VAULT_WEBHOOK_ALLOWED_HOSTS: `host[:port]` entries webhooks may deliver to; empty: no webhooks. */
  webhookAllowedHosts: string[];
  /** VAULT_WEBHOOK_TIMEOUT_MS: how long a receiver has to answer one delivery attempt in whole. */
  webhookTimeoutMs: number;
  /** VAULT_WEBHOOK_RETRY_WINDOW_MS: how long a failing delivery is retried, from its first attempt, before it is failed. */
  webhookRetryWindowMs: number;
  /** VAULT_WEBHOOKS_PER_TENANT: webhooks one tenant may have (each follows the log on its own). */
  webhooksPerTenant: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): VaultConfig {
  const int = (name: string, fallback: number, min: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer ≥ ${min}`);
    return value;
  };
  const bootstrapKey = env.VAULT_BOOTSTRAP_KEY || undefined;
  if (bootstrapKey !== undefined && bootstrapKey.length < 32) {
    throw new ConfigError('VAULT_BOOTSTRAP_KEY must be at least 32 characters long');
  }
  const logLevel = (env.VAULT_LOG_LEVEL ?? 'info') as VaultConfig['logLevel'];
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new ConfigError('VAULT_LOG_LEVEL must be debug, info, warn or error');
  return {
    port: int('PORT', 3000, 0),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.VAULT_DATA_DIR || './data'),
    eventStore: env.VAULT_EVENT_STORE || 'embedded',
    search: env.VAULT_SEARCH || 'embedded',
    meiliMasterKey: env.MEILI_MASTER_KEY || undefined,
    masterKey: env.VAULT_MASTER_KEY || undefined,
    masterKeyPrevious: env.VAULT_MASTER_KEY_PREVIOUS || undefined,
    bootstrapKey,
    writeWaitMs: int('VAULT_WRITE_WAIT_MS', 2000, 0),
    rateLimitPerSecond: int('VAULT_RATE_LIMIT_PER_SECOND', 2000, 1),
    logLevel,
    projector: projectorMode(env),
    expirySweepMs: int('VAULT_EXPIRY_SWEEP_MS', 30000, 0),
    sync: syncMode(env),
    reactorTimeoutMs: int('VAULT_REACTOR_TIMEOUT_MS', 10000, 1),
    // isolated-vm refuses an isolate heap under 8 MB.
    reactorMemoryMb: int('VAULT_REACTOR_MEMORY_MB', 64, 8),
    reactorConcurrency: int('VAULT_REACTOR_CONCURRENCY', 4, 1),
    reactorAllowedHosts: allowedHosts(env, 'VAULT_REACTOR_ALLOWED_HOSTS'),
    reactorUser: reactorUser(env),
    auditAccessRecords: auditAccessRecords(env),
    auditRetentionDays: auditRetentionDays(env),
    expressionBudgetMs: int('VAULT_EXPRESSION_BUDGET_MS', 30, 1),
    proxyAllowedHosts: allowedHosts(env, 'VAULT_PROXY_ALLOWED_HOSTS'),
    proxyTimeoutMs: int('VAULT_PROXY_TIMEOUT_MS', 25000, 1),
    proxyAnonymousRatePerSecond: int('VAULT_PROXY_ANONYMOUS_RATE_PER_SECOND', 20, 1),
    webhookAllowedHosts: allowedHosts(env, 'VAULT_WEBHOOK_ALLOWED_HOSTS'),
    webhookTimeoutMs: int('VAULT_WEBHOOK_TIMEOUT_MS', 5000, 1),
    webhookRetryWindowMs: int('VAULT_WEBHOOK_RETRY_WINDOW_MS', 24 * 3_600_000, 1),
    webhooksPerTenant: int('VAULT_WEBHOOKS_PER_TENANT', 25, 1),
  };
}


function projectorMode(env: NodeJS.ProcessEnv): VaultConfig['projector'] {
  const value = env.VAULT_PROJECTOR || ((env.VAULT_SEARCH || 'embedded') === 'embedded' ? 'inline' : 'external');
  if (value !== 'inline' && value !== 'external') throw new ConfigError('VAULT_PROJECTOR must be inline or external');
  return value;
}

/** VAULT_AUDIT_ACCESS_RECORDS: `true` (default) or `false`; anything else is refused rather than read as either. */
function auditAccessRecords(env: NodeJS.ProcessEnv): boolean {
  const value = (env.VAULT_AUDIT_ACCESS_RECORDS || 'true').toLowerCase();
  if (value !== 'true' && value !== 'false') throw new ConfigError('VAULT_AUDIT_ACCESS_RECORDS must be true or false');
  return value === 'true';
}

function syncMode(env: NodeJS.ProcessEnv): VaultConfig['sync'] {
  const value = (env.VAULT_SYNC || 'normal').toLowerCase();
  if (value !== 'normal' && value !== 'full') throw new ConfigError('VAULT_SYNC must be normal or full');
  return value;
}

/** VAULT_REACTOR_ALLOWED_HOSTS, VAULT_PROXY_ALLOWED_HOSTS or VAULT_WEBHOOK_ALLOWED_HOSTS: comma-separated `host[:port]`, checked by the one parser. */
function allowedHosts(env: NodeJS.ProcessEnv, name: 'VAULT_REACTOR_ALLOWED_HOSTS' | 'VAULT_PROXY_ALLOWED_HOSTS' | 'VAULT_WEBHOOK_ALLOWED_HOSTS'): string[] {
  const entries = (env[name] ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  try {
    AllowedHosts.parse(entries);
  } catch (error) {
    // The parser's message quotes the entry: it is the operator's own setting, not a secret.
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
  return entries;
}

/** VAULT_REACTOR_USER, resolved against this host's accounts before anything is opened or generated. */
function reactorUser(env: NodeJS.ProcessEnv): ReactorChildUser | null {
  try {
    return reactorChildUser(env.VAULT_REACTOR_USER);
  } catch (error) {
    if (error instanceof ReactorUserError) throw new ConfigError(error.message);
    throw error;
  }
}

/** VAULT_AUDIT_RETENTION_DAYS: unset or empty keeps access records forever; otherwise a whole number of days, at least 1. */
function auditRetentionDays(env: NodeJS.ProcessEnv): number | null {
  const raw = env.VAULT_AUDIT_RETENTION_DAYS;
  if (raw === undefined || raw.trim() === '') return null;
  // Digits only: `1e3`, `0x10` or `30d` would be read as some other number, or as none.
  const value = /^\s*[0-9]{1,9}\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError('VAULT_AUDIT_RETENTION_DAYS must be a whole number of days, at least 1 (unset keeps access records forever)');
  }
  return value;
}
