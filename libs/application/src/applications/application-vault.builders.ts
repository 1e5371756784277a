// The application and tenant specs' vault: the embedded log with the tenant and application read models, real API keys,
// and a management caller of a fresh tenant; applications are given as POST /applications creates them.
import { randomUUID } from 'node:crypto';
import { apiKeys, applicationsTable, SqliteApplicationReadModel, SqliteTenantReadModel, tenantsTable, uuidGenerator } from '@vault/adapters';
import { MANAGEMENT_PERMISSIONS, type ApplicationInput } from '@vault/domain';
import { openEmbedded } from '@vault/test-support/embedded-stores';
import { applicationsProjection } from '../projections/applications.projection';
import { tenantsProjection } from '../projections/tenants.projection';
import { aCaller } from '../shared/use-case.builders';
import type { Caller } from '../shared/use-case';
import type { ApplicationWithKey } from './application-view';
import { CreateApplicationCommand, CreateApplicationHandler } from './create-application';

export const CHECKOUT: ApplicationInput = { name: 'Checkout', type: 'private', permissions: ['token:read', 'token:search'] };

export type ApplicationVault = Awaited<ReturnType<typeof openApplicationVault>>;

export async function openApplicationVault(name: string) {
  const vault = await openEmbedded({ name, collections: [tenantsTable, applicationsTable], projections: [tenantsProjection, applicationsProjection] });
  const runner = vault.runner();
  let tenantId: string = randomUUID();
  return {
    vault,
    events: vault.events,
    runner,
    keys: apiKeys,
    applications: new SqliteApplicationReadModel(vault.model),
    tenants: new SqliteTenantReadModel(vault.model),
    get tenantId() {
      return tenantId;
    },
    /** A fresh tenant for the next case. */
    newTenant(): string {
      tenantId = randomUUID();
      return tenantId;
    },
    /** A management application of the current tenant, holding `permissions` (every management permission unless given). */
    admin: (permissions: readonly string[] = MANAGEMENT_PERMISSIONS): Caller => aCaller({ tenantId, type: 'management', permissions }),
    /** Given: an application of the current tenant, created by a holder of every management permission. */
    givenApplication: (input: ApplicationInput = CHECKOUT): Promise<ApplicationWithKey> =>
      new CreateApplicationHandler(runner, uuidGenerator, apiKeys).execute(
        new CreateApplicationCommand(aCaller({ tenantId, type: 'management', permissions: MANAGEMENT_PERMISSIONS }), input),
      ),
    close: () => vault.close(),
  };
}
