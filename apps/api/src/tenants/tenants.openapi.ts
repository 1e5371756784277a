// /tenants/self: the caller's own tenant.
import { authErrors, badRequest, json } from '../http/common.openapi';

const ref = { $ref: '#/components/schemas/Tenant' };
const example = {
  id: 'b0075700-0000-4000-8000-000000000001',
  name: 'Acme',
  created_by: 'cli',
  created_at: '2024-05-01T10:00:00.000Z',
  modified_by: '0f6e1d0a-3c8b-4f7e-9a41-5b2d7c9e8f10',
  modified_at: '2024-05-02T09:00:00.000Z',
};

export const tenantSchemas = {
  Tenant: {
    type: 'object',
    required: ['id', 'name', 'created_by', 'created_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string', minLength: 1, maxLength: 200 },
      created_by: { type: 'string', description: 'An application id, or the operator (`cli`, `bootstrap`)' },
      created_at: { type: 'string', format: 'date-time' },
      modified_by: { type: 'string' },
      modified_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const tenantPaths = {
  '/tenants/self': {
    get: {
      summary: "The caller's tenant (tenant:read)",
      responses: { '200': { description: 'The tenant', content: json(ref, example) }, ...authErrors },
    },
    put: {
      summary: 'Rename the tenant (tenant:update)',
      requestBody: {
        required: true,
        content: json(
          { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', minLength: 1, maxLength: 200 } } },
          { name: 'Acme Europe' },
        ),
      },
      responses: { '200': { description: 'The renamed tenant', content: json(ref, example) }, '400': { $ref: '#/components/responses/BadRequest' }, ...authErrors },
    },
    delete: {
      summary: 'Delete the tenant with everything in it (tenant:delete)',
      description:
        "Destroys the tenant's key, so every token's data (and every reactor configuration) is shredded at once, and removes the tenant's tokens, " +
        'applications, reactors, private formulas and audit entries from the read models. Answers 204 once that is durable; from then on every key ' +
        'of the tenant, this one included, answers 401, and so does a request of the tenant that was already in flight. Other tenants are untouched. ' +
        'The event log keeps the events, whose token data and configurations can no longer be decrypted.',
      responses: { '204': { description: 'Deleted' }, ...badRequest, ...authErrors },
    },
  },
};
