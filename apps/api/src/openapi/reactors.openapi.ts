// The reactor endpoints (CRUD; the invocation, POST /reactors/{id}/react, comes with its own document section).
import { MAX_CONFIGURATION_VALUE_LENGTH, MAX_REACTOR_NAME_LENGTH } from '@vault/domain';
import { authErrors, json, pageParameters, uuidPath } from './common.openapi';

const ref = { $ref: '#/components/schemas/Reactor' };
const idObject = { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } };
const configuration = {
  type: 'object',
  maxProperties: 100,
  additionalProperties: { type: ['string', 'boolean', 'number'] },
  description:
    `Setting name → value: every setting the formula declares, each of its declared type, and nothing else (else 400 naming \`configuration.<name>\`). ` +
    `Strings at most ${MAX_CONFIGURATION_VALUE_LENGTH.toLocaleString('en')} characters. Values are secrets: stored sealed under the reactor's own key, ` +
    'returned only to reactor:read holders (and to the writer that sent them), destroyed with the reactor; error messages name settings, never values.',
};
const nameField = { type: 'string', minLength: 1, maxLength: MAX_REACTOR_NAME_LENGTH };
const applicationField = {
  ...idObject,
  type: ['object', 'null'],
  description: "A private application of your tenant whose rules tokenize the code's `tokenize` output (else 400 on `application.id`); absent or null: the caller's",
};

const createExample = {
  name: 'Mask support emails',
  formula: { id: '3b9f0c27-6d1a-4e58-8f2b-51c7a9e0d342' },
  configuration: { mask_character: '#', reveal_domain: true },
};
const updateExample = { name: 'Mask support emails', configuration: { mask_character: '*', reveal_domain: false } };

const writeErrors = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '413': { $ref: '#/components/responses/TooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
};
const conflict = {
  description:
    "Lost a concurrent-write race; or the reactor's formula was deleted while this write ran (deleting a formula that has reactors is otherwise refused)",
  content: json({ $ref: '#/components/schemas/Problem' }),
};

export const reactorSchemas = {
  ReactorCreateBody: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'formula', 'configuration'],
    properties: {
      name: nameField,
      formula: {
        ...idObject,
        description: 'An official formula or one of your tenant\'s, with status verified (else 400 on `formula.id`; another tenant\'s private formula is as unknown as a missing one)',
      },
      configuration,
      application: applicationField,
    },
  },
  ReactorUpdateBody: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'configuration'],
    description: 'The create body without `formula`: a reactor keeps its formula (sending one is a 400).',
    properties: { name: nameField, configuration, application: applicationField },
  },
  Reactor: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      tenant_id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      formula: {
        oneOf: [{ $ref: '#/components/schemas/ReactorFormula' }, { type: 'null' }],
        description: 'The formula as GET /reactor-formulas/{id} shows it now (a reactor runs its formula\'s current code)',
      },
      configuration: { type: 'object', additionalProperties: { type: ['string', 'boolean', 'number'] } },
      application: { ...idObject, description: 'Present when the reactor has one' },
      created_by: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      modified_by: { type: 'string', description: 'Present once modified' },
      modified_at: { type: 'string', format: 'date-time', description: 'Present once modified' },
    },
  },
};

export const reactorPaths = {
  '/reactors': {
    post: {
      summary: 'Create a reactor: a formula with its configuration (reactor:create)',
      requestBody: { required: true, content: json({ $ref: '#/components/schemas/ReactorCreateBody' }, createExample) },
      responses: { '201': { description: 'Created', content: json(ref) }, ...writeErrors, ...authErrors },
    },
    get: {
      summary: 'List your reactors, by name then id (reactor:read)',
      parameters: [
        {
          name: 'name',
          in: 'query',
          required: false,
          schema: { type: 'string', maxLength: 200 },
          description: 'As for GET /reactor-formulas: case-insensitive; `*` matches any run of characters (whole name), no `*` means "contains"',
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
  '/reactors/{id}': {
    parameters: [uuidPath()],
    get: {
      summary: 'Get a reactor, its configuration opened (reactor:read)',
      responses: { '200': { description: 'The reactor', content: json(ref) }, '400': { $ref: '#/components/responses/BadRequest' }, '404': { $ref: '#/components/responses/NotFound' }, ...authErrors },
    },
    put: {
      summary: 'Replace a reactor\'s name, configuration and application (reactor:update)',
      requestBody: { required: true, content: json({ $ref: '#/components/schemas/ReactorUpdateBody' }, updateExample) },
      responses: { '200': { description: 'The updated reactor', content: json(ref) }, '404': { $ref: '#/components/responses/NotFound' }, '409': conflict, ...writeErrors, ...authErrors },
    },
    patch: {
      summary: 'Merge-patch a reactor (RFC 7396) (reactor:update)',
      description:
        'Merged into the reactor as a PUT body would restate it (`configuration` and `application` merge one level: null removes a setting), then checked as a PUT.',
      requestBody: {
        required: true,
        content: { 'application/merge-patch+json': { schema: { type: 'object' }, example: { configuration: { mask_character: '-' } } } },
      },
      responses: { '200': { description: 'The updated reactor', content: json(ref) }, '404': { $ref: '#/components/responses/NotFound' }, '409': conflict, ...writeErrors, ...authErrors },
    },
    delete: {
      summary: 'Delete a reactor and destroy the key of its configuration (reactor:delete)',
      responses: { '204': { description: 'Deleted' }, '400': { $ref: '#/components/responses/BadRequest' }, '404': { $ref: '#/components/responses/NotFound' }, ...authErrors },
    },
  },
};
