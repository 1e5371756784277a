import {
  ACCESS_TRANSFORMS,
  APPLICATION_TYPES,
  MAX_APPLICATION_NAME_LENGTH,
  MAX_APPLICATION_RULES_JSON_LENGTH,
  MAX_RULE_CONTAINER_LENGTH,
  MAX_RULE_DESCRIPTION_LENGTH,
} from '@vault/domain';
import { authErrors, badRequest, json, pageParameters, uuidPath } from '../http/common.openapi';

const ref = { $ref: '#/components/schemas/Application' };
const body = {
  required: true,
  content: json(
    { $ref: '#/components/schemas/ApplicationBody' },
    {
      name: 'Checkout service',
      type: 'private',
      permissions: ['token:read', 'token:search'],
      rules: [{ description: 'PCI masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:search'] }],
    },
  ),
};
const bodyErrors = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '413': { $ref: '#/components/responses/TooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
};

/** Management permissions are granted only by those who hold them. */
const escalationForbidden = (what: string) => ({
  '403': {
    description: `The application lacks the endpoint's permission, or ${what}; \`detail\` names the management permissions the caller lacks`,
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        example: {
          type: 'https://httpstatuses.io/403',
          title: 'Forbidden',
          status: 403,
          detail: 'Only holders of a management permission may grant it; the caller lacks application:delete, reactor:create.',
        },
      },
    },
  },
});
const grants = escalationForbidden('the body grants a management permission the caller does not hold');
const touches = escalationForbidden('the application holds management permissions the caller does not hold');

export const applicationSchemas = {
  AccessRule: {
    type: 'object',
    required: ['priority', 'container', 'transform', 'permissions'],
    properties: {
      description: { type: 'string', maxLength: MAX_RULE_DESCRIPTION_LENGTH },
      priority: { type: 'integer', minimum: 1 },
      container: { type: 'string', maxLength: MAX_RULE_CONTAINER_LENGTH, example: '/pci/', description: 'A `/…/` path of a-z, 0-9, _ and - segments' },
      transform: { type: 'string', enum: [...ACCESS_TRANSFORMS] },
      permissions: { type: 'array', items: { type: 'string', example: 'token:read' } },
    },
  },
  ApplicationBody: {
    type: 'object',
    required: ['name', 'type'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: MAX_APPLICATION_NAME_LENGTH, description: 'Counted in characters (Unicode code points)' },
      type: { type: 'string', enum: [...APPLICATION_TYPES] },
      permissions: { type: 'array', items: { type: 'string' } },
      rules: {
        type: 'array',
        maxItems: 100,
        items: { $ref: '#/components/schemas/AccessRule' },
        description: `At most ${MAX_APPLICATION_RULES_JSON_LENGTH.toLocaleString('en-US')} characters of JSON together, as stored (containers lower-cased)`,
      },
      expires_at: { type: ['string', 'null'], format: 'date-time', description: 'Required for, and only for, expiring applications' },
    },
  },
  Application: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      tenant_id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      type: { type: 'string' },
      permissions: { type: 'array', items: { type: 'string' } },
      rules: { type: 'array', items: { $ref: '#/components/schemas/AccessRule' } },
      expires_at: { type: ['string', 'null'], format: 'date-time' },
      created_by: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      modified_by: { type: 'string' },
      modified_at: { type: 'string', format: 'date-time' },
      key: { type: 'string', description: 'Only in the create and regenerate responses; shown once.' },
    },
  },
};

export const applicationPaths = {
  '/applications': {
    post: {
      summary: 'Create an application (application:create)',
      requestBody: body,
      responses: { '201': { description: 'Created, with its key', content: json(ref) }, ...bodyErrors, ...authErrors, ...grants },
    },
    get: {
      summary: 'List applications, newest first (application:read)',
      parameters: pageParameters,
      responses: {
        '200': {
          description: 'A page',
          content: json({
            type: 'object',
            properties: { pagination: { $ref: '#/components/schemas/Pagination' }, data: { type: 'array', items: ref } },
          }),
        },
        '400': { $ref: '#/components/responses/BadRequest' },
        ...authErrors,
      },
    },
  },
  '/applications/{id}': {
    parameters: [uuidPath()],
    get: {
      summary: 'Get an application (application:read)',
      responses: { '200': { description: 'The application', content: json(ref) }, ...badRequest, '404': { $ref: '#/components/responses/NotFound' }, ...authErrors },
    },
    put: {
      summary: 'Replace an application’s settings (application:update)',
      requestBody: body,
      responses: {
        '200': { description: 'Updated', content: json(ref) },
        '404': { $ref: '#/components/responses/NotFound' },
        '409': { $ref: '#/components/responses/Conflict' },
        ...bodyErrors,
        ...authErrors,
        ...escalationForbidden('the application, or the body, holds management permissions the caller does not hold'),
      },
    },
    delete: {
      summary: 'Delete an application; its key stops working (application:delete)',
      responses: { '204': { description: 'Deleted' }, ...badRequest, '404': { $ref: '#/components/responses/NotFound' }, ...authErrors, ...touches },
    },
  },
  '/applications/{id}/regenerate': {
    parameters: [uuidPath()],
    post: {
      summary: 'Issue a new key; the old one stops working at once (application:update)',
      responses: {
        '200': { description: 'The application with its new key', content: json(ref) },
        ...badRequest,
        '404': { $ref: '#/components/responses/NotFound' },
        ...authErrors,
        ...touches,
      },
    },
  },
};
