// Test data builders for application specs: settings, recorded histories, the contexts of an application and the operator.
import type { CommandContext } from '../shared/events';
import { MANAGEMENT_PERMISSIONS } from '../permissions/permission-catalogue';
import type { ApplicationInput } from './application.decide';
import type { ApplicationCreated, ApplicationEvent } from './application.events';

export const TENANT = '7a2d1b52-6a43-4c53-9d55-2a4f0c7a0001';
export const OTHER_TENANT = '7a2d1b52-6a43-4c53-9d55-2a4f0c7a0002';
export const CALLER = 'c0c0c0c0-0000-4000-8000-000000000001';
export const APP_ID = 'a2a2a2a2-0000-4000-8000-000000000001';
export const CREATED_AT = new Date('2024-05-01T10:00:00.000Z');
export const LATER = new Date('2024-05-02T12:30:00.000Z');

/** What the attacker of the escalation report holds: a management application with only application:create. */
export const ONLY_CREATE = ['application:create'];
export const ALL_MANAGEMENT = [...MANAGEMENT_PERMISSIONS];

export const anInput = (overrides: Partial<ApplicationInput> = {}): ApplicationInput => ({
  name: 'Checkout',
  type: 'private',
  permissions: ['token:read', 'token:search'],
  ...overrides,
});

export const aManagementInput = (permissions: string[]): ApplicationInput => ({ name: 'Admin', type: 'management', permissions });

export const asApplication = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: TENANT,
  actor: { type: 'application', id: CALLER },
  now: LATER,
  correlationId: 'corr-1',
  ...overrides,
});

export const asOperator = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: TENANT,
  actor: { type: 'operator', id: 'cli' },
  now: LATER,
  correlationId: 'corr-op',
  ...overrides,
});

/** A recorded creation (settings as validation returns them), as a history for `given`. */
export const applicationCreated = (
  input: ApplicationInput = anInput(),
  owner: { tenantId?: string; id?: string } = {},
): ApplicationCreated => ({
  type: 'ApplicationCreated',
  data: {
    id: owner.id ?? APP_ID,
    tenant_id: owner.tenantId ?? TENANT,
    name: input.name,
    type: input.type as ApplicationCreated['data']['type'],
    permissions: input.permissions ?? [],
    rules: [],
    expires_at: null,
    key_hash: 'hash-1',
    created_by: 'bootstrap',
    created_at: CREATED_AT.toISOString(),
  },
});

export const applicationDeleted = (id = APP_ID): ApplicationEvent => ({
  type: 'ApplicationDeleted',
  data: { id, tenant_id: TENANT, deleted_by: CALLER, deleted_at: CREATED_AT.toISOString() },
});
