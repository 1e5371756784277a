// Test data builders for formula specs: a valid input, the contexts of a tenant application and of the operator.
import type { CommandContext } from '../shared/events';
import type { ReactorFormulaCreated } from './reactor-formula.events';
import type { FormulaStatus, ValidFormulaInput } from './reactor-formula.types';

export const TENANT = '6f1c1b52-6a43-4c53-9d55-2a4f0c7a0001';
export const OTHER_TENANT = '6f1c1b52-6a43-4c53-9d55-2a4f0c7a0002';
export const APP = 'a1a1a1a1-0000-4000-8000-000000000001';
export const FORMULA_ID = 'f0f0f0f0-0000-4000-8000-000000000001';
export const CREATED_AT = new Date('2024-05-01T10:00:00.000Z');
export const LATER = new Date('2024-05-02T12:30:00.000Z');

export const aFormulaInput = (overrides: Partial<ValidFormulaInput> = {}): ValidFormulaInput => ({
  name: 'Mask Email',
  description: null,
  type: 'private',
  icon: null,
  code: 'module.exports = async function (req) { return { raw: req.args }; };',
  configuration: [{ name: 'domain', description: null, type: 'string' }],
  request_parameters: [{ name: 'email', description: null, type: 'string', optional: false }],
  ...overrides,
});

export const tenantApp = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: TENANT,
  actor: { type: 'application', id: APP },
  now: LATER,
  correlationId: 'corr-1',
  ...overrides,
});

export const operator = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: null,
  actor: { type: 'operator', id: 'cli' },
  now: LATER,
  correlationId: 'corr-op',
  ...overrides,
});

/** A recorded creation, as a history for `given`. */
export const formulaCreated = (
  input: ValidFormulaInput,
  owner: { tenantId: string | null; status?: FormulaStatus; by?: string } = { tenantId: TENANT },
  id = FORMULA_ID,
): ReactorFormulaCreated => ({
  type: 'ReactorFormulaCreated',
  data: {
    id,
    tenant_id: owner.tenantId,
    status: owner.status ?? 'verified',
    ...input,
    created_by: owner.by ?? APP,
    created_at: CREATED_AT.toISOString(),
  },
});
