// The OpenAPI 3.1 document served at /openapi.json and rendered at /docs. Written by hand so that it says exactly what the API does.
import type { OpenAPIObject } from '@nestjs/swagger';
import { APPLICATION_TYPES } from '@vault/domain';
import { applicationPaths, applicationSchemas } from './applications.openapi';
import { commonResponses, commonSchemas } from './common.openapi';
import { reactorFormulaPaths, reactorFormulaSchemas } from './reactor-formulas.openapi';
import { reactorPaths, reactorSchemas } from './reactors.openapi';
import { tokenPaths, tokenSchemas } from './tokens.openapi';
import { tokenizePaths } from './tokenize.openapi';
import { logPaths, logSchemas } from './logs.openapi';
import { tenantPaths, tenantSchemas } from './tenants.openapi';

export function openApiDocument(): OpenAPIObject {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Vault API',
      version: '0.1.0',
      description:
        'Self-hostable token vault. Every endpoint but /health needs the `SVC-API-KEY` header; errors are RFC 7807 problem details.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'SVC-API-KEY' } },
      schemas: { ...commonSchemas, ...applicationSchemas, ...reactorFormulaSchemas, ...tokenSchemas, ...reactorSchemas, ...logSchemas, ...tenantSchemas },
      responses: commonResponses,
    },
    paths: <OpenAPIObject['paths']>{
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
      ...applicationPaths,
      ...reactorFormulaPaths,
      ...tokenPaths,
      ...tokenizePaths,
      ...reactorPaths,
      ...logPaths,
      ...tenantPaths,
      '/health': {
        get: {
          summary: 'Liveness and readiness, with projection lag',
          security: [],
          responses: { '200': { $ref: '#/components/responses/Ready' }, '503': { $ref: '#/components/responses/NotReady' } },
        },
      },
    },
  };
}
