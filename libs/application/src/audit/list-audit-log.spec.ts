// ListAuditLogHandler over the audit projection on the embedded stores: access records appended to a tenant's audit
// stream and writes of other aggregates become GET /logs entries through the projector, beside the projections that
// follow the same events; the caller's tenant only, and a bad filter refused naming it.
import { randomUUID } from 'node:crypto';
import { auditTable, applicationsTable, SqliteAuditReadModel } from '@vault/adapters';
import { auditStream, DomainError, type AccessRecordedData, type EventMetadata } from '@vault/domain';
import { openEmbedded, type Embedded } from '@vault/test-support/embedded-stores';
import type { EventToAppend } from '../ports/event-store';
import { ListAuditLogHandler, ListAuditLogQuery } from './list-audit-log';
import type { Caller } from '../shared/use-case';
import { applicationsProjection } from '../projections/applications.projection';
import { auditProjection } from '../projections/audit.projection';

const TENANT = randomUUID();
const APP = randomUUID();
const TOKEN = randomUUID();
const at = (minute: number) => `2024-05-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const metadata = (timestamp: string, tenant = TENANT): EventMetadata => ({
  tenant_id: tenant,
  actor: { type: 'application', id: APP },
  timestamp,
  correlation_id: 'req-1',
});
const accessRecorded = (data: Partial<AccessRecordedData> & { created_at: string }, tenant = TENANT): EventToAppend => ({
  type: 'AccessRecorded',
  data: { tenant_id: tenant, entity_type: 'token', entity_id: TOKEN, operation: 'reveal', via: 'get', ...data },
  metadata: metadata(data.created_at, tenant),
});
const caller = (tenantId = TENANT): Caller => ({
  principal: { applicationId: APP, tenantId, type: 'management', permissions: new Set(['log:read']), accessRules: [] },
  now: new Date(at(59)),
  requestId: 'req-2',
});

describe('ListAuditLogHandler', () => {
  let vault: Embedded;
  let logs: ListAuditLogHandler;

  beforeAll(async () => {
    vault = await openEmbedded({
      name: 'audit',
      collections: [auditTable, applicationsTable],
      projections: [auditProjection, applicationsProjection],
    });
    logs = new ListAuditLogHandler(new SqliteAuditReadModel(vault.model));
  });
  afterAll(() => vault.close());

  const append = async (streamId: string, events: EventToAppend[]) => {
    const { position } = await vault.events.append(streamId, events, 'any');
    expect(await vault.projector.waitFor(position, 5000)).toBe(true);
  };

  it("turns the access records of a tenant's audit stream, appended many at once, into entries, newest first", async () => {
    await append(auditStream(TENANT), [
      accessRecorded({ created_at: at(1) }),
      accessRecorded({ entity_id: null, operation: 'search', via: 'search', count: 3, created_at: at(2) }),
      accessRecorded({ operation: 'reveal', via: 'detokenize', created_at: at(3) }),
    ]);
    const page = await logs.execute(new ListAuditLogQuery(caller(), {}, { page: 1, size: 20 }));
    expect(page.total).toBe(3);
    expect(page.items.map((e) => e.message)).toEqual([
      'Token revealed in plaintext (detokenize)',
      'Search returned 3 tokens in plaintext',
      'Token revealed in plaintext (GET /tokens/{id})',
    ]);
    expect(page.items[0]).toEqual({
      tenant_id: TENANT,
      actor_id: APP,
      actor_type: 'application',
      entity_type: 'token',
      entity_id: TOKEN,
      operation: 'reveal',
      message: 'Token revealed in plaintext (detokenize)',
      created_at: at(3),
    });
  });

  it('projects an application write into the audit log and the applications collection alike', async () => {
    const id = randomUUID();
    await append(`application-${id}`, [
      {
        type: 'ApplicationCreated',
        data: {
          id,
          tenant_id: TENANT,
          name: 'Reveal app',
          type: 'private',
          permissions: ['token:read'],
          rules: [],
          expires_at: null,
          key_hash: 'the-key-hash',
          created_by: APP,
          created_at: at(4),
        },
        metadata: metadata(at(4)),
      },
    ]);
    expect((await vault.model.load('applications', [id])).get(id)?.doc).toMatchObject({ id, name: 'Reveal app' });
    const page = await logs.execute(new ListAuditLogQuery(caller(), { entity_id: id.toUpperCase() }, { page: 1, size: 20 }));
    expect(page.items).toEqual([expect.objectContaining({ entity_type: 'application', entity_id: id, operation: 'create', message: 'Application created' })]);
    expect(JSON.stringify(page)).not.toContain('the-key-hash');
  });

  it("answers only the caller's tenant, and refuses a bad filter naming it", async () => {
    const other = randomUUID();
    await append(auditStream(other), [accessRecorded({ created_at: at(5) }, other)]);
    expect((await logs.execute(new ListAuditLogQuery(caller(other), {}, { page: 1, size: 20 }))).total).toBe(1);
    expect((await logs.execute(new ListAuditLogQuery(caller(), { start_date: at(5) }, { page: 1, size: 20 }))).total).toBe(0);
    const refused = logs.execute(new ListAuditLogQuery(caller(), { entity_type: 'card' }, { page: 1, size: 20 }));
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ kind: 'validation', errors: { entity_type: [expect.any(String)] } });
  });
});
