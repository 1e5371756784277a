// Every Nest injection token, in one place. The ports they stand for are interfaces in libs/application/src/ports/;
// only the wiring in this library and the apps needs a runtime token to inject them by.

/** The event log (port: EventStore), tokens' fingerprints and search hashes sealed in it. */
export const EVENT_STORE = Symbol('EventStore');
/** The same log as written (sealed indexes left sealed): for the key shredder, which reads only deletions. */
export const RAW_EVENT_STORE = Symbol('RawEventStore');
/** Encryption, fingerprints and search hashes (port: TokenCrypto). */
export const TOKEN_CRYPTO = Symbol('TokenCrypto');
/** The tenant keys (the TokenCrypto adapter holds them): destroyed by a tenant's deletion, asked on every request. */
export const TENANT_KEYS = Symbol('TenantKeys');
/** Evaluates mask, search-index and fingerprint expressions (port: ExpressionEngine). */
export const EXPRESSION_ENGINE = Symbol('ExpressionEngine');
/** Compiles reactor formula code in the sandbox (port: FormulaCodeChecker). */
export const FORMULA_CODE_CHECKER = Symbol('FormulaCodeChecker');
/** Runs reactor code in the sandbox under the VAULT_REACTOR_* limits (port: ReactorRuntime). */
export const REACTOR_RUNTIME = Symbol('ReactorRuntime');
/** Sends proxied requests to their destinations (port: ProxyEgress). */
export const PROXY_EGRESS = Symbol('ProxyEgress');
/** Webhook delivery of this process (WebhookDelivery in webhook-delivery.ts), or null where none runs. */
export const WEBHOOK_DELIVERY = Symbol('WebhookDelivery');
/** The read models behind their ports (ReadModels in read-models.ts). */
export const READ_MODELS = Symbol('ReadModels');
/** The validated configuration (VaultConfig). */
export const VAULT_CONFIG = Symbol('VaultConfig');
/** The structured logger. */
export const LOGGER = Symbol('Logger');
/** Where this process's projector runs: 'inline', 'external' or 'none'. */
export const PROJECTOR_MODE = Symbol('ProjectorMode');
/** This process's read-model projector, or null when another process runs it. */
export const PROJECTOR = Symbol('Projector');
/** What a write waits on before it answers (the projector, a poller of its checkpoint, or nothing). */
export const PROJECTION_WAITER = Symbol('ProjectionWaiter');
/** The SQLite key store that holds the data keys. */
export const KEY_STORE_HANDLE = Symbol('KeyStoreHandle');
/** The key shredder (a projector over TokenDeleted), or null outside the API. */
export const KEY_SHREDDER = Symbol('KeyShredder');
/** The ports the use-case handlers are built from (UseCasePorts in use-cases.ts). */
export const USE_CASE_PORTS = Symbol('UseCasePorts');
/** Where access records go (port: AccessLog): group-committed, or off (VAULT_AUDIT_ACCESS_RECORDS=false). */
export const ACCESS_LOG = Symbol('AccessLog');
