// GET /permissions: the permission catalogue.
import { APPLICATION_TYPES } from '@vault/domain';

export const permissionSchemas = {
  Permission: {
    type: 'object',
    properties: {
      type: { type: 'string', example: 'token:search' },
      description: { type: 'string', example: 'Search tokens' },
      application_types: { type: 'array', items: { type: 'string' }, example: ['private'] },
    },
  },
};

export const permissionPaths = {
  '/permissions': {
    get: {
      summary: 'List permissions',
      description: 'The permission catalogue; any valid key may read it.',
      parameters: [
        {
          name: 'application_type',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: [...APPLICATION_TYPES] },
        },
      ],
      responses: {
        '200': {
          description: 'Permissions',
          content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Permission' } } } },
        },
        '400': { $ref: '#/components/responses/BadRequest' },
        '401': { $ref: '#/components/responses/Unauthorized' },
        '429': { $ref: '#/components/responses/TooManyRequests' },
      },
    },
  },
};
