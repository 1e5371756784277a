// Tenant creation writes two streams with no atomic multi-stream append; a crash between the two appends must leave
// either nothing usable or, once the operator retries or the next start-up bootstraps, one tenant with one working key.
// The crash is a test double around the real embedded event store: it lets N appends through, then fails like a
// process that died before its next write.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AesGcmTokenCrypto,
  apiKeys,
  applicationsTable,
  SqliteApplicationReadModel,
  SqliteEventStore,
  SqliteKeyStore,
  SqliteReadModel,
  SqliteTenantReadModel,
  systemClock,
  tenantsTable,
  uuidGenerator,
} from '@vault/adapters';
import {
  ApiKeys,
  AppendResult,
  applicationsProjection,
  Authenticator,
  BOOTSTRAP_TENANT_ID,
  CommandRunner,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  ProjectionSet,
  Projector,
  StreamAppend,
  BootstrapTenantCommand,
  BootstrapTenantHandler,
  CreateTenantCommand,
  CreateTenantHandler,
  tenantsProjection,
} from '@vault/application';
import { Actor, DomainError, MANAGEMENT_PERMISSIONS } from '@vault/domain';

class CrashingEventStore implements EventStore {
  private allowed = Number.POSITIVE_INFINITY;

  constructor(private readonly inner: EventStore) {}

  /** The next `appends` appends succeed; every one after them fails without writing anything. */
  crashAfter(appends: number): void {
    this.allowed = appends;
  }

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.allowed <= 0) throw new Error('simulated crash before the append');
    this.allowed -= 1;
    return this.inner.append(streamId, events, expected);
  }

  /** A batch is one write: it crashes or goes through whole, and counts as one append. */
  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    if (this.allowed <= 0) throw new Error('simulated crash before the append');
    this.allowed -= 1;
    return this.inner.appendMany(batch);
  }

  readStream: EventStore['readStream'] = (streamId) => this.inner.readStream(streamId);
  readAll: EventStore['readAll'] = (after, limit) => this.inner.readAll(after, limit);
  headPosition: EventStore['headPosition'] = () => this.inner.headPosition();
  backlog: EventStore['backlog'] = (after, cap) => this.inner.backlog(after, cap);
  subscribe: EventStore['subscribe'] = (options) => this.inner.subscribe(options);
  close = async () => undefined;
}

const BOOTSTRAP = 'crash-test-bootstrap-key-0123456789abcdef';
const OTHER_BOOTSTRAP = 'crash-test-bootstrap-key-changed-9876543210';
const operator = { type: 'operator', id: 'cli' } as const;
const silent = { info: () => undefined, error: () => undefined };

describe('tenant creation interrupted between its two appends', () => {
  let dir: string;
  let store: SqliteEventStore;
  let model: SqliteReadModel;
  let projector: Projector;
  let authenticator: Authenticator;
  let keyStore: SqliteKeyStore;
  /** Every key the services generated, including those of a creation that crashed before returning it. */
  let generated: string[];

  /** The handlers of one run of the CLI or of one API start-up, over the shared store and read model. */
  const start = (events: EventStore = store, readModel: SqliteReadModel = model) => {
    const recordingKeys: ApiKeys = {
      generate: (type) => {
        const key = apiKeys.generate(type);
        generated.push(key);
        return key;
      },
      hash: apiKeys.hash,
      generateProxyKey: apiKeys.generateProxyKey,
    };
    const runner = new CommandRunner(events, projector, { maxAttempts: 5, writeWaitMs: 2000 });
    const create = new CreateTenantHandler(runner, uuidGenerator, recordingKeys, systemClock);
    const bootstrap = new BootstrapTenantHandler(runner, events, new SqliteTenantReadModel(readModel), recordingKeys, systemClock);
    return {
      create: (name: string, actor: Actor, correlationId: string) => create.execute(new CreateTenantCommand(name, actor, correlationId)),
      bootstrap: (key: string, correlationId: string) => bootstrap.execute(new BootstrapTenantCommand(key, correlationId)),
    };
  };
  const crashing = (afterAppends: number) => {
    const events = new CrashingEventStore(store);
    events.crashAfter(afterAppends);
    return start(events);
  };
  const authenticates = async (key: string) => {
    try {
      return await authenticator.authenticate(key);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'unauthenticated') return null;
      throw error;
    }
  };
  const logTypes = async () => (await store.readAll(null, 1000)).map((e) => e.type);
  const tenantCount = () => new SqliteTenantReadModel(model).count();
  const applicationsOf = async (tenantId: string) => (await new SqliteApplicationReadModel(model).list(tenantId, { page: 1, size: 100 })).total;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vault-tenant-crash-'));
    store = SqliteEventStore.open(dir);
    model = SqliteReadModel.open(dir, [tenantsTable, applicationsTable]);
    projector = new Projector(store, model, new ProjectionSet([tenantsProjection, applicationsProjection]), silent);
    await projector.start();
    keyStore = SqliteKeyStore.open(dir);
    authenticator = new Authenticator(
      new SqliteApplicationReadModel(model),
      new SqliteTenantReadModel(model),
      apiKeys,
      systemClock,
      new AesGcmTokenCrypto(randomBytes(32), keyStore),
    );
    generated = [];
  });
  afterEach(async () => {
    await projector.stop();
    keyStore.close();
    await model.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tenant create: the half-written creation has no tenant and its key never works; the retry gives one working key', async () => {
    await expect(crashing(1).create('acme', operator, 'corr-1')).rejects.toThrow('simulated crash');
    expect(await logTypes()).toEqual(['ApplicationCreated']);
    expect(generated).toHaveLength(1);
    expect(await authenticates(generated[0])).toBeNull();
    expect(await tenantCount()).toBe(0);

    const retried = await start().create('acme', operator, 'corr-2');
    expect(await authenticates(retried.management_key)).toMatchObject({ tenantId: retried.tenant_id, type: 'management' });
    expect(await authenticates(generated[0])).toBeNull();
    expect(await tenantCount()).toBe(1);
    expect(await applicationsOf(retried.tenant_id)).toBe(1);
  });

  it('tenant create: a crash before the first append leaves nothing at all', async () => {
    await expect(crashing(0).create('acme', operator, 'corr-1')).rejects.toThrow('simulated crash');
    expect(await logTypes()).toEqual([]);
  });

  it('tenant create: a bad name is refused before anything is written', async () => {
    await expect(start().create('n'.repeat(201), operator, 'corr-1')).rejects.toMatchObject({ kind: 'validation' });
    expect(await logTypes()).toEqual([]);
  });

  it('bootstrap: the next start-up completes the interrupted creation, with one tenant and one working key', async () => {
    await expect(crashing(1).bootstrap(BOOTSTRAP, 'boot-1')).rejects.toThrow('simulated crash');
    expect(await authenticates(BOOTSTRAP)).toBeNull();
    expect(await tenantCount()).toBe(0);

    expect(await start().bootstrap(BOOTSTRAP, 'boot-2')).toEqual({ tenant_id: BOOTSTRAP_TENANT_ID, management_key: BOOTSTRAP });
    const principal = await authenticates(BOOTSTRAP);
    expect(principal).toMatchObject({ tenantId: BOOTSTRAP_TENANT_ID, type: 'management' });
    expect([...principal!.permissions].sort()).toEqual([...MANAGEMENT_PERMISSIONS].sort());
    expect(await tenantCount()).toBe(1);
    expect(await applicationsOf(BOOTSTRAP_TENANT_ID)).toBe(1);

    const log = await logTypes();
    expect(await start().bootstrap(BOOTSTRAP, 'boot-3')).toBeNull();
    expect(await logTypes()).toEqual(log);
  });

  it('bootstrap: a start-up with a changed key completes the creation with that key; the interrupted one never works', async () => {
    await expect(crashing(1).bootstrap(BOOTSTRAP, 'boot-1')).rejects.toThrow('simulated crash');
    await start().bootstrap(OTHER_BOOTSTRAP, 'boot-2');
    expect(await authenticates(OTHER_BOOTSTRAP)).toMatchObject({ tenantId: BOOTSTRAP_TENANT_ID });
    expect(await authenticates(BOOTSTRAP)).toBeNull();
    expect(await tenantCount()).toBe(1);
    expect(await applicationsOf(BOOTSTRAP_TENANT_ID)).toBe(1);
  });

  it('bootstrap: two start-ups at once create one tenant with one application', async () => {
    const results = await Promise.all([start().bootstrap(BOOTSTRAP, 'boot-a'), start().bootstrap(BOOTSTRAP, 'boot-b')]);
    // One reports the creation (and logs it); the other found it done and wrote nothing, not even a key regeneration.
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await logTypes()).toEqual(['ApplicationCreated', 'TenantCreated']);
    expect(await authenticates(BOOTSTRAP)).toMatchObject({ tenantId: BOOTSTRAP_TENANT_ID });
    expect(await tenantCount()).toBe(1);
    expect(await applicationsOf(BOOTSTRAP_TENANT_ID)).toBe(1);
  });

  it('bootstrap: a finished bootstrap is read from the log, so a lagging read model neither repeats it nor re-keys it', async () => {
    await start().bootstrap(BOOTSTRAP, 'boot-1');
    const log = await logTypes();
    const empty = SqliteReadModel.open(join(dir, 'lagging'), [tenantsTable, applicationsTable]);
    try {
      expect(await start(store, empty).bootstrap(OTHER_BOOTSTRAP, 'boot-2')).toBeNull();
    } finally {
      await empty.close();
    }
    expect(await logTypes()).toEqual(log);
    expect(await authenticates(BOOTSTRAP)).toMatchObject({ tenantId: BOOTSTRAP_TENANT_ID });
  });
});
