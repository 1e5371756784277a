// A private formula's code routinely holds upstream API keys, and its name and description are its tenant's own words.
// The event log keeps every event forever (and SQLite's WAL keeps the pages it wrote), so in plaintext they would
// outlive the tenant's deletion. The log holds them sealed under a data key of the formula's own, wrapped by the
// tenant's key: deleting the tenant destroys that key and shreds them with everything else of the tenant.
//
// This decorator of any EventStore seals them on the way in and opens them on the way out, so the domain, the use cases,
// the projections, rebuilds and the CLI keep seeing plain ReactorFormulaCreated/Updated data. An event whose key is gone
// (its tenant was deleted later in the log) opens with an empty name and code: only a rebuild or a lagging projector
// reads one, and the TenantDeleted that follows removes the formula from every read model. Official formulas belong to
// no tenant and are everyone's to read, so they stay as they are, like events written before this sealing existed.
//
// The icon, the configuration and the request parameters stay readable: they are the formula's contract (reactor events
// keep the settings' names and types in plaintext too), not its secrets; and sealed (base64 adds a third), a formula at
// every limit would append 7.6 MB instead of 5.7 MB, beyond the headroom docker-compose.yml gives EventStoreDB.
import type { EncryptedData } from '@vault/domain';
import { SealingEventStore } from '../../commands/sealing-event-store';
import type { TokenCrypto } from '../../ports/token-crypto';
import type { EventStore, EventToAppend, RecordedEvent } from '../../ports/event-store';
import { isShredded } from '../../shared/shredded';

/** The formula events whose data carries the whole formula (ReactorFormulaFields). */
const SEALED_EVENT_TYPES: ReadonlySet<string> = new Set(['ReactorFormulaCreated', 'ReactorFormulaUpdated']);

/** What the log holds instead of `name`, `description` and `code`. */
export const SEALED_FORMULA_FIELD = 'sealed_formula';

/**
 * The key-store id of the data key that seals a private formula's content. Token ids are UUIDs, so `formula:<uuid>`
 * is never a token's key, nor a reactor's (`reactor:<uuid>`); the key seals nothing else, so its content is its `data`.
 */
export const formulaKeyId = (formulaId: string): string => `formula:${formulaId}`;

interface FormulaContent {
  name: string;
  description: string | null;
  code: string;
}

/** What a formula whose key is destroyed opens to: still a formula to every reader, with nothing of its own left. */
const SHREDDED: FormulaContent = { name: '', description: null, code: '' };

type PrivateFormulaData = Record<string, unknown> & { id: string; tenant_id: string };

const isPrivate = (data: unknown): data is PrivateFormulaData =>
  typeof data === 'object' && data !== null && typeof (data as PrivateFormulaData).id === 'string' && typeof (data as PrivateFormulaData).tenant_id === 'string';

const hasPlainContent = (data: unknown): data is PrivateFormulaData & FormulaContent =>
  isPrivate(data) && typeof (data as Partial<FormulaContent>).code === 'string' && typeof (data as Partial<FormulaContent>).name === 'string';

const hasSealedContent = (data: unknown): data is PrivateFormulaData & { [SEALED_FORMULA_FIELD]: EncryptedData } =>
  isPrivate(data) && typeof data[SEALED_FORMULA_FIELD] === 'object' && data[SEALED_FORMULA_FIELD] !== null;

/** The data with the envelope where its name was, so that opened formulas still show their name first. */
function withEnvelope(data: PrivateFormulaData & FormulaContent, envelope: EncryptedData): PrivateFormulaData {
  const sealed: Record<string, unknown> = {};
  for (const key in data) {
    if (key === 'name') sealed[SEALED_FORMULA_FIELD] = envelope;
    else if (key !== 'description' && key !== 'code') sealed[key] = data[key];
  }
  return sealed as PrivateFormulaData;
}

/** The event with its content in place of the sealed one. */
function withContent(event: RecordedEvent, content: FormulaContent): RecordedEvent {
  const data = event.data as Record<string, unknown>;
  const opened: Record<string, unknown> = {};
  for (const key in data) {
    if (key !== SEALED_FORMULA_FIELD) {
      opened[key] = data[key];
      continue;
    }
    opened.name = content.name;
    opened.description = content.description;
    opened.code = content.code;
  }
  return { ...event, data: opened };
}

export class SealedFormulaContentEventStore extends SealingEventStore {
  constructor(
    inner: EventStore,
    private readonly crypto: TokenCrypto,
  ) {
    super(inner);
  }







  /**
   * Seals under the formula's key, created by its first seal. A tenant deleted meanwhile refuses it (401, as every
   * other request of that tenant), and nothing is appended.
   */
  protected async sealAll(events: EventToAppend[]): Promise<EventToAppend[]> {
    if (!events.some((event) => SEALED_EVENT_TYPES.has(event.type))) return events;
    const sealed: EventToAppend[] = [];
    for (const event of events) {
      if (!SEALED_EVENT_TYPES.has(event.type) || !hasPlainContent(event.data)) {
        sealed.push(event);
        continue;
      }
      const { id, tenant_id, name, description, code } = event.data;
      const content: FormulaContent = { name, description, code };
      const envelope = await this.crypto.encrypt(tenant_id, formulaKeyId(id), JSON.stringify(content), 'data');
      sealed.push({ ...event, data: withEnvelope(event.data, envelope) });
    }
    return sealed;
  }

  protected async openAll(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    if (!events.some((event) => SEALED_EVENT_TYPES.has(event.type))) return events;
    const byTenant = new Map<string, RecordedEvent[]>();
    for (const event of events) {
      if (!SEALED_EVENT_TYPES.has(event.type) || !hasSealedContent(event.data)) continue;
      const tenant = byTenant.get(event.data.tenant_id) ?? [];
      tenant.push(event);
      byTenant.set(event.data.tenant_id, tenant);
    }
    const contents = new Map<RecordedEvent, FormulaContent>();
    for (const [tenantId, sealed] of byTenant) {
      const opened = await this.openContents(tenantId, sealed);
      sealed.forEach((event, i) => contents.set(event, opened[i]));
    }
    return events.map((event) => {
      const content = contents.get(event);
      return content ? withContent(event, content) : event;
    });
  }

  /** Each event's sealed content opened; SHREDDED where its key (or its tenant's) is destroyed. */
  private async openContents(tenantId: string, events: RecordedEvent[]): Promise<FormulaContent[]> {
    const sealed = events.map((event) => event.data as PrivateFormulaData & { [SEALED_FORMULA_FIELD]: EncryptedData });
    try {
      const opened = await this.crypto.decryptMany(
        tenantId,
        sealed.map((data) => ({ tokenId: formulaKeyId(data.id), encrypted: data[SEALED_FORMULA_FIELD] })),
        'data',
      );
      return opened.map((result) => (typeof result === 'string' ? (JSON.parse(result) as FormulaContent) : SHREDDED));
    } catch (error) {
      if (!isShredded(error)) throw error;
      return events.map(() => SHREDDED);
    }
  }
}
