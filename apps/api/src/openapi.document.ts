// The OpenAPI 3.1 document served at /openapi.json and rendered at /docs. Written by hand so that it says exactly what
// the API does: each feature folder documents its own routes in <feature>.openapi.ts, http/common.openapi.ts holds
// what they share, and this file puts them together in the order the document lists them.
import type { OpenAPIObject } from '@nestjs/swagger';
import { applicationPaths, applicationSchemas } from './applications/applications.openapi';
import { auditLogPaths, auditLogSchemas } from './audit/audit-log.openapi';
import { detokenizePaths } from './detokenize/detokenize.openapi';
import { healthPaths, healthResponses, healthSchemas } from './health/health.openapi';
import { commonResponses, commonSchemas } from './http/common.openapi';
import { permissionPaths, permissionSchemas } from './permissions/permissions.openapi';
import { reactorFormulaPaths, reactorFormulaSchemas } from './reactor-formulas/reactor-formulas.openapi';
import { reactorPaths, reactorSchemas } from './reactors/reactors.openapi';
import { tenantPaths, tenantSchemas } from './tenants/tenants.openapi';
import { tokenizePaths } from './tokenize/tokenize.openapi';
import { tokenPaths, tokenSchemas } from './tokens/tokens.openapi';

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
      schemas: {
        ...commonSchemas,
        ...permissionSchemas,
        ...healthSchemas,
        ...applicationSchemas,
        ...reactorFormulaSchemas,
        ...tokenSchemas,
        ...reactorSchemas,
        ...auditLogSchemas,
        ...tenantSchemas,
      },
      responses: { ...commonResponses, ...healthResponses },
    },
    paths: <OpenAPIObject['paths']>{
      ...permissionPaths,
      ...applicationPaths,
      ...reactorFormulaPaths,
      ...tokenPaths,
      ...tokenizePaths,
      ...detokenizePaths,
      ...reactorPaths,
      ...auditLogPaths,
      ...tenantPaths,
      ...healthPaths,
    },
  };
}
