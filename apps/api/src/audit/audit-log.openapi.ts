// GET /logs: the tenant's audit log.
import { AUDIT_ENTITY_TYPES, AUDIT_OPERATIONS } from '@vault/domain';
import { authErrors, json, pageParameters } from '../http/common.openapi';

const ref = { $ref: '#/components/schemas/AuditEntry' };
const ISO_DATE =
  'ISO 8601: a date (`2024-05-01`, the whole UTC day) or a date-time with a time zone (`2024-05-01T10:00:00Z`, `2024-05-01T12:00:00+02:00`). Malformed: a 400 naming the parameter.';
const START_DATE = `Entries created at or after it (a date: from the start of that day). ${ISO_DATE} After end_date: a 400 naming start_date.`;
const END_DATE = `Entries created at or before it (a date: to the end of that day). ${ISO_DATE}`;

const example = {
  pagination: { total_items: 2, page_number: 1, page_size: 20, total_pages: 1 },
  data: [
    {
      tenant_id: 'b0075700-0000-4000-8000-000000000001',
      actor_id: '0f6e1d0a-3c8b-4f7e-9a41-5b2d7c9e8f10',
      actor_type: 'application',
      entity_type: 'token',
      entity_id: '26f7a9a4-9d2e-4f1b-8a3c-1e5b7d9f0a12',
      operation: 'update',
      message: 'Token updated',
      created_at: '2024-05-01T10:05:00.000Z',
    },
    {
      tenant_id: 'b0075700-0000-4000-8000-000000000001',
      actor_id: '0f6e1d0a-3c8b-4f7e-9a41-5b2d7c9e8f10',
      actor_type: 'application',
      entity_type: 'token',
      entity_id: '26f7a9a4-9d2e-4f1b-8a3c-1e5b7d9f0a12',
      operation: 'create',
      message: 'Token created',
      created_at: '2024-05-01T10:00:00.000Z',
    },
  ],
};

export const auditLogSchemas = {
  AuditEntry: {
    type: 'object',
    description:
      'Who touched which entity, when. Never token data, keys, query values, args or configuration values: ids, a fixed text per kind of entry and, for a search, the number of tokens it returned in plaintext.',
    required: ['tenant_id', 'actor_id', 'actor_type', 'entity_type', 'entity_id', 'operation', 'message', 'created_at'],
    properties: {
      tenant_id: { type: 'string', format: 'uuid' },
      actor_id: { type: 'string', description: "The acting application's id; for the operator, a fixed name (`cli`, `bootstrap`, `expiry-sweep`)" },
      actor_type: { type: 'string', enum: ['application', 'operator'] },
      entity_type: { type: 'string', enum: [...AUDIT_ENTITY_TYPES] },
      entity_id: { type: ['string', 'null'], description: 'null for a search, which touches no one entity' },
      operation: {
        type: 'string',
        enum: [...AUDIT_OPERATIONS],
        description: 'Writes: create, update, delete, regenerate (an application key). Access records: reveal, search, use (a token used by a reactor), invoke (a reactor run)',
      },
      message: { type: 'string', example: 'Search returned 3 tokens in plaintext' },
      created_at: { type: 'string', format: 'date-time' },
    },
  },
};

export const auditLogPaths = {
  '/logs': {
    get: {
      summary: "Your tenant's audit log, newest first (log:read)",
      description:
        'Every write of a token, application, reactor, formula or the tenant, and every access to plaintext (reveal on GET, search and detokenize, token use in reactors, reactor invocations). ' +
        'Ordered by created_at descending, then by the order of the event log. With VAULT_AUDIT_RETENTION_DAYS set, access records older than that are dropped; entries of writes are kept.',
      parameters: [
        {
          name: 'entity_type',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: [...AUDIT_ENTITY_TYPES] },
          description: 'Another value is a 400 naming entity_type',
        },
        { name: 'entity_id', in: 'query', required: false, schema: { type: 'string', format: 'uuid' }, description: 'Not a UUID: a 400 naming entity_id' },
        { name: 'start_date', in: 'query', required: false, schema: { type: 'string', maxLength: 64 }, description: START_DATE },
        { name: 'end_date', in: 'query', required: false, schema: { type: 'string', maxLength: 64 }, description: END_DATE },
        ...pageParameters,
      ],
      responses: {
        '200': {
          description: 'A page of entries',
          content: json(
            { type: 'object', properties: { pagination: { $ref: '#/components/schemas/Pagination' }, data: { type: 'array', items: ref } } },
            example,
          ),
        },
        '400': { $ref: '#/components/responses/BadRequest' },
        ...authErrors,
      },
    },
  },
};
