import { givenWhenThenFor } from '@vault/test-support/given-when-then';
import type { CommandContext } from '../shared/events';
import { decideTenant, evolveTenant, TenantCommand, TenantEvent, TenantState } from '.';

const TENANT = '5f0c0000-0000-4000-8000-000000000001';
const AT = new Date('2024-05-02T12:30:00.000Z');
const operator: CommandContext = { tenantId: TENANT, actor: { type: 'operator', id: 'cli' }, now: AT, correlationId: 'corr' };

const tenantDecider = {
  decide: decideTenant,
  evolve: (state: TenantState | null, event: TenantEvent) => evolveTenant(state, event),
  initialState: (): TenantState | null => null,
};
const { given } = givenWhenThenFor(tenantDecider, operator);

const create = (name: string): TenantCommand => ({ type: 'CreateTenant', id: TENANT, name });
const created: TenantEvent = {
  type: 'TenantCreated',
  data: { id: TENANT, name: 'default', created_by: 'bootstrap', created_at: '2024-05-01T10:00:00.000Z' },
};

describe('CreateTenant', () => {
  it('records the trimmed name, the actor and the clock', () => {
    given([])
      .when(create('  acme '))
      .then([{ type: 'TenantCreated', data: { id: TENANT, name: 'acme', created_by: 'cli', created_at: AT.toISOString() } }]);
  });

  it.each([
    ['an empty name', ''],
    ['a blank name', '   '],
    ['a 201-character name', 'n'.repeat(201)],
    ['a 201-emoji name', '🔑'.repeat(201)],
  ])('refuses %s (400)', (_case, name) => {
    given([]).when(create(name)).then({ error: 'validation', errors: { name: ['name must be 1 to 200 characters long'] } });
  });

  it('counts characters as code points: 200 emoji (400 UTF-16 units) are a valid name', () => {
    const name = '🔑'.repeat(200);
    given([]).when(create(name)).then([{ type: 'TenantCreated', data: { id: TENANT, name, created_by: 'cli', created_at: AT.toISOString() } }]);
  });

  it('does nothing when the same tenant was created already: a retried or concurrent bootstrap completes, never duplicates', () => {
    given([created]).when(create('default')).then([]);
  });

  it('refuses another creation under a taken id (409)', () => {
    given([created]).when(create('acme')).then({ error: 'conflict' });
  });
});
