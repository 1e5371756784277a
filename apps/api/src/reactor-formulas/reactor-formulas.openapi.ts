import { FORMULA_STATUSES, FORMULA_TYPES, FORMULA_VALUE_TYPES } from '@vault/domain';
import { authErrors, json, pageParameters, uuidPath } from '../http/common.openapi';

const ref = { $ref: '#/components/schemas/ReactorFormula' };
const example = {
  name: 'Card enricher',
  description: 'Adds the BIN to raw',
  type: 'private',
  icon: 'data:image/png;base64,iVBORw0KGgo…',
  code: 'module.exports = async function (req) { return { raw: { bin: String(req.args.card.number).slice(0, 6) } }; };',
  configuration: [{ name: 'region', description: 'Where the card was issued', type: 'string' }],
  request_parameters: [{ name: 'card.number', description: 'The card number', type: 'string', optional: false }],
};
const body = { required: true, content: json({ $ref: '#/components/schemas/ReactorFormulaBody' }, example) };
const writeErrors = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '413': { $ref: '#/components/responses/TooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
  '422': {
    description:
      'The code does not compile as Node.js 16 JavaScript (a hashbang first line is fine), or does not export a function it can call: a class or a generator function is refused too',
    content: {
      'application/problem+json': {
        schema: { $ref: '#/components/schemas/Problem' },
        example: { type: 'https://httpstatuses.io/422', title: 'Unprocessable Entity', status: 422, errors: { code: ['SyntaxError: Unexpected token (line 1, column 30)'] } },
      },
    },
  },
  '503': {
    description:
      "Past the caller's tenant's half of the formula code check queue (32 checks waiting, by default); retry after the `Retry-After` header (seconds)",
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
    content: json({ $ref: '#/components/schemas/Problem' }),
  },
};
const element = (extra: object = {}) => ({
  type: 'object',
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: ['string', 'null'], maxLength: 2000 },
    type: { type: 'string', enum: [...FORMULA_VALUE_TYPES] },
    ...extra,
  },
});

export const reactorFormulaSchemas = {
  ReactorFormulaBody: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'type', 'code', 'configuration', 'request_parameters'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      description: { type: ['string', 'null'], maxLength: 2000 },
      type: { type: 'string', enum: [...FORMULA_TYPES], description: 'Tenant applications may only write private formulas (official → 403)' },
      icon: {
        type: ['string', 'null'],
        description:
          'data:image/png|jpg|jpeg;base64,… whose bytes are that image type (a PNG signature followed by a valid IHDR chunk; a JPEG SOI followed by a complete marker segment), at most 1 MiB decoded',
      },
      code: {
        type: 'string',
        minLength: 1,
        maxLength: 50000,
        description: 'Node.js 16 JavaScript; module.exports must be a function. Code nesting thousands of levels deep does not compile (422)',
      },
      configuration: { type: 'array', maxItems: 100, items: element(), description: 'Names: no ".", unique; at most 100 elements' },
      request_parameters: {
        type: 'array',
        maxItems: 200,
        items: element({ optional: { type: 'boolean', default: false } }),
        description: 'Names: dotted paths, unique, no name both a leaf and a parent; at most 200 elements',
      },
    },
  },
  ReactorFormula: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      description: { type: ['string', 'null'] },
      type: { type: 'string', enum: [...FORMULA_TYPES] },
      status: { type: 'string', enum: [...FORMULA_STATUSES] },
      icon: { type: ['string', 'null'] },
      code: { type: 'string' },
      configuration: { type: 'array', items: element() },
      request_parameters: { type: 'array', items: element({ optional: { type: 'boolean' } }) },
      created_by: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      modified_by: { type: 'string', description: 'Present once modified' },
      modified_at: { type: 'string', format: 'date-time', description: 'Present once modified' },
    },
  },
};

const update = (deprecated: boolean) => ({
  summary: deprecated ? 'Update a reactor formula (deprecated alias of PUT /reactor-formulas/{id})' : 'Update a reactor formula (reactor:update)',
  deprecated,
  requestBody: body,
  responses: {
    '200': {
      description: 'The updated formula, with modified_by and modified_at',
      content: json(ref),
      ...(deprecated
        ? {
            headers: {
              Deprecation: { schema: { type: 'string', example: 'true' } },
              Link: { schema: { type: 'string', example: '</reactor-formulas/{id}>; rel="successor-version"' } },
            },
          }
        : {}),
    },
    '404': { $ref: '#/components/responses/NotFound' },
    '409': breaksReactors('A configuration or setting change that existing reactors would no longer fit (`errors.reactors` names them), or a lost concurrent-write race'),
    ...writeErrors,
    ...authErrors,
  },
});

/** A 409 that may name the reactors a formula change would break. */
const breaksReactors = (description: string) => ({
  description,
  content: {
    'application/problem+json': {
      schema: { $ref: '#/components/schemas/Problem' },
      example: {
        type: 'https://httpstatuses.io/409',
        title: 'Conflict',
        status: 409,
        detail: 'This change would break reactors built on the formula.',
        errors: { reactors: ['Forward to billing (6f0c3d4e-8a9b-4c1d-9e2f-3a4b5c6d7e8f)'] },
      },
    },
  },
});

export const reactorFormulaPaths = {
  '/reactor-formulas': {
    post: {
      summary: 'Create a reactor formula (reactor:create)',
      requestBody: body,
      responses: { '201': { description: 'Created', content: json(ref) }, ...writeErrors, ...authErrors },
    },
    get: {
      summary: 'List official formulas and your private ones, by name then id (reactor:read)',
      parameters: [
        {
          name: 'name',
          in: 'query',
          required: false,
          schema: { type: 'string', maxLength: 200 },
          description:
            'Case-insensitive; `*` matches any run of characters (whole name), no `*` means "contains". Given once, as a plain value (`name[]=` is a 400); a NUL (`%00`) in it is a 400',
        },
        ...pageParameters,
      ],
      responses: {
        '200': {
          description: 'A page',
          content: json({ type: 'object', properties: { pagination: { $ref: '#/components/schemas/Pagination' }, data: { type: 'array', items: ref } } }),
        },
        '400': { $ref: '#/components/responses/BadRequest' },
        ...authErrors,
      },
    },
  },
  '/reactor-formulas/{id}': {
    parameters: [uuidPath()],
    get: {
      summary: 'Get a reactor formula (reactor:read)',
      responses: { '200': { description: 'The formula', content: json(ref) }, '400': { $ref: '#/components/responses/BadRequest' }, '404': { $ref: '#/components/responses/NotFound' }, ...authErrors },
    },
    put: update(false),
    delete: {
      summary: 'Delete a reactor formula (reactor:delete)',
      responses: {
        '204': { description: 'Deleted' },
        '400': { $ref: '#/components/responses/BadRequest' },
        '404': { $ref: '#/components/responses/NotFound' },
        '409': breaksReactors('The formula has reactors (`errors.reactors` names them; delete them first), or a lost concurrent-write race'),
        ...authErrors,
      },
    },
  },
  '/reator-formula/{id}': { parameters: [uuidPath()], put: update(true) },
};
