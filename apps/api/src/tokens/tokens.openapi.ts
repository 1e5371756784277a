import {
  DATA_SEARCHABLE_TYPES,
  DATE_FIELDS,
  listNames,
  SEARCH_FIELDS,
  type SearchFieldKind,
  type SearchFieldSpec,
  TOKEN_TYPES,
} from '@vault/domain';
import { authErrors, badRequest, json, uuidPath } from '../http/common.openapi';

const ref = { $ref: '#/components/schemas/Token' };
const tokenType = { type: 'string', enum: [...TOKEN_TYPES] };

// How the search description names a field of each kind: a new kind of field must say here how it is searched.
const describeField: Record<SearchFieldKind, (name: string, spec: SearchFieldSpec) => string> = {
  term: (name, spec) => (spec.kind === 'term' && spec.case === 'exact' ? `${name} (case-sensitive)` : name),
  date: (name) => name,
  container: (name) => `${name} (exact, or trailing \`*\` for sub-containers)`,
  data: (name) => `${name} (${DATA_SEARCHABLE_TYPES.join(', ')})`,
  metadata: (name) => name,
};

/** The query syntax of POST /tokens/search; its fields are those of SEARCH_FIELDS. */
const SEARCH_QUERY_SYNTAX = [
  'Fields (case-insensitive unless noted):',
  `${Object.entries(SEARCH_FIELDS).map(([name, spec]: [string, SearchFieldSpec]) => describeField[spec.kind](name, spec)).join(', ')}.`,
  'Operators AND, OR, NOT (also `!`, `-`), parentheses;',
  `ranges on ${listNames(DATE_FIELDS, 'and')}: \`[a TO b]\`, \`{a TO b}\`, mixed, \`*\` open.`,
].join(' ');

const bodyErrors = {
  '400': { $ref: '#/components/responses/BadRequest' },
  '413': { $ref: '#/components/responses/TooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
};

export const tokenSchemas = {
  Token: {
    type: 'object',
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: tokenType,
      tenant_id: { type: 'string', format: 'uuid' },
      data: { description: "Per the application's access rule: reveal → plaintext, mask → the evaluated mask, redact → absent" },
      fingerprint: { type: 'string' },
      fingerprint_expression: { type: 'string' },
      mask: { type: 'string' },
      containers: { type: 'array', items: { type: 'string', example: '/pii/high/' } },
      metadata: { type: 'object', additionalProperties: { type: 'string' } },
      search_indexes: { type: 'array', items: { type: 'string' } },
      expires_at: { type: 'string', format: 'date-time' },
      created_by: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      modified_by: { type: 'string' },
      modified_at: { type: 'string', format: 'date-time' },
    },
  },
  CreateTokenBody: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'data'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: tokenType,
      data: {
        description:
          'card_number: 13–19 Luhn-valid digits; social_security_number: 123-45-6789 or 123456789; employer_id_number: 12-3456789 or 123456789; token: any JSON value but null, nested at most 64 deep, at most 65,536 characters of JSON',
      },
      containers: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 10 },
      metadata: { type: 'object', additionalProperties: { type: 'string', maxLength: 500 }, maxProperties: 50 },
      search_indexes: { type: 'array', items: { type: 'string' }, description: 'Liquid expressions; each must yield one non-empty value (else 400). Not for card_number.' },
      fingerprint_expression: { type: 'string' },
      mask: { type: 'string', description: 'Liquid expression; one that evaluates to the whole data (with or without delimiters) is a 400' },
      deduplicate_token: {
        type: 'boolean',
        description:
          "Return the existing token with the same type and fingerprint (200) instead of creating one, when one of the caller's rules grants token:create on one of the EXISTING token's containers (shown under that rule); otherwise a new token is created (201)",
      },
      expires_at: { type: 'string', format: 'date-time' },
    },
  },
  SearchTokensBody: {
    type: 'object',
    additionalProperties: false,
    properties: {
      query: { type: ['string', 'null'], maxLength: 4096, description: 'Lucene-style query; absent, null or blank returns every token you may search' },
      page: { type: 'integer', minimum: 1, default: 1 },
      size: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    },
  },
};

export const tokenPaths = {
  '/tokens': {
    post: {
      summary: 'Create a token (token:create)',
      requestBody: { required: true, content: json({ $ref: '#/components/schemas/CreateTokenBody' }, { type: 'social_security_number', data: '123-45-6789', metadata: { customer: 'acme' } }) },
      responses: {
        '201': { description: 'Created', content: json(ref) },
        '200': { description: 'deduplicate_token found an existing token', content: json(ref) },
        '409': { description: 'The id is taken in this tenant (ids of other tenants do not count)', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        ...bodyErrors,
        ...authErrors,
      },
    },
  },
  '/tokens/search': {
    post: {
      summary: 'Search tokens with a Lucene-style query (token:search)',
      description: `${SEARCH_QUERY_SYNTAX} Ordered by created_at descending, then id.`,
      requestBody: { required: false, content: json({ $ref: '#/components/schemas/SearchTokensBody' }, { query: 'data:6789 AND container:"/pii/*"', page: 1, size: 20 }) },
      responses: {
        '200': {
          description: 'A page of tokens, data transformed per access rule',
          content: json({ type: 'object', properties: { pagination: { $ref: '#/components/schemas/Pagination' }, data: { type: 'array', items: ref } } }),
        },
        ...bodyErrors,
        ...authErrors,
      },
    },
  },
  '/tokens/{id}': {
    parameters: [uuidPath()],
    get: {
      summary: 'Get a token (token:read)',
      responses: { '200': { description: 'The token', content: json(ref) }, '400': { $ref: '#/components/responses/BadRequest' }, '404': { $ref: '#/components/responses/NotFound' }, ...authErrors },
    },
    patch: {
      summary: 'Update a token with a JSON merge patch (token:update)',
      description:
        "Changing mask, search_indexes or fingerprint_expression without new `data` needs the caller's token:update rule for the token to be `reveal` (else 403 naming the field). Changing containers without new `data` is a 403 when any of the caller's rules would then show the token more revealingly than before.",
      requestBody: {
        required: true,
        content: { 'application/merge-patch+json': { schema: { type: 'object' }, example: { metadata: { customer: null, region: 'eu' } } } },
      },
      responses: {
        '200': { description: 'The updated token', content: json(ref) },
        '404': { $ref: '#/components/responses/NotFound' },
        '409': { $ref: '#/components/responses/Conflict' },
        ...bodyErrors,
        ...authErrors,
        '403': { description: 'The key lacks token:update, or the patch would reveal more than its rule shows', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
    },
    delete: {
      summary: 'Delete a token; its data key is destroyed (token:delete)',
      responses: { '204': { description: 'Deleted' }, ...badRequest, '404': { $ref: '#/components/responses/NotFound' }, ...authErrors },
    },
  },
};
