// Test data builders for reactor specs: contexts, formula and application snapshots, sealed content and events.
import type { CommandContext } from '../shared/events';
import type { ReactorCreated } from './reactor.events';
import type { ReactorApplicationSnapshot, ReactorContent, ReactorFormulaSnapshot } from './reactor.types';

export const TENANT = '4eac7000-0000-4000-8000-000000000001';
export const OTHER_TENANT = '4eac7000-0000-4000-8000-000000000002';
export const APP = 'a7a7a7a7-0000-4000-8000-000000000001';
export const REACTOR_ID = 'e0e0e0e0-0000-4000-8000-000000000001';
export const FORMULA_ID = 'f0f0f0f0-0000-4000-8000-00000000000f';
export const PRIVATE_APP_ID = 'a7a7a7a7-0000-4000-8000-0000000000a1';
export const CREATED_AT = new Date('2024-05-01T10:00:00.000Z');
export const LATER = new Date('2024-05-02T12:30:00.000Z');

export const anApp = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: TENANT,
  actor: { type: 'application', id: APP },
  now: LATER,
  correlationId: 'corr-1',
  ...overrides,
});

/** The tenant's own verified formula declaring an `api_key` string and a `sandbox` boolean. */
export const aFormula = (overrides: Partial<ReactorFormulaSnapshot> = {}): ReactorFormulaSnapshot => ({
  id: FORMULA_ID,
  type: 'private',
  tenant_id: TENANT,
  status: 'verified',
  configuration: [
    { name: 'api_key', type: 'string' },
    { name: 'sandbox', type: 'boolean' },
  ],
  ...overrides,
});

export const anApplication = (overrides: Partial<ReactorApplicationSnapshot> = {}): ReactorApplicationSnapshot => ({
  id: PRIVATE_APP_ID,
  tenant_id: TENANT,
  type: 'private',
  ...overrides,
});

/** Content as the handler builds it for aFormula(): the configuration sealed, its shape in the clear. */
export const aContent = (overrides: Partial<ReactorContent> = {}): ReactorContent => ({
  name: 'Charge card',
  configuration: { v: 1, alg: 'AES-256-GCM', key_ref: REACTOR_ID, iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' },
  configuration_shape: [
    { name: 'api_key', type: 'string' },
    { name: 'sandbox', type: 'boolean' },
  ],
  application_id: null,
  ...overrides,
});

/** A recorded creation, as a history for `given`. */
export const reactorCreated = (
  content: Partial<ReactorContent> = {},
  owner: { tenantId?: string; id?: string } = {},
): ReactorCreated => ({
  type: 'ReactorCreated',
  data: {
    id: owner.id ?? REACTOR_ID,
    tenant_id: owner.tenantId ?? TENANT,
    formula_id: FORMULA_ID,
    ...aContent(content),
    created_by: APP,
    created_at: CREATED_AT.toISOString(),
  },
});
