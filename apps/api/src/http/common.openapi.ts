// The parts of the OpenAPI document every feature shares: problem details, pagination, the request limits, the common
// responses and parameters. Each feature's own paths and schemas are in its folder (tokens/tokens.openapi.ts, …).
import {
  MAX_APPLICATION_NAME_LENGTH,
  MAX_APPLICATION_RULES_JSON_LENGTH,
  MAX_RULE_CONTAINER_LENGTH,
  MAX_RULE_DESCRIPTION_LENGTH,
  MAX_TOKENIZE_TOKENS,
} from '@vault/domain';

const problemExample = (status: number, detail: string, errors?: Record<string, string[]>) => ({
  'application/problem+json': {
    schema: { $ref: '#/components/schemas/Problem' },
    example: { type: `https://httpstatuses.io/${status}`, title: detail, status, ...(errors ? { errors } : {}) },
  },
});

export const commonSchemas = {
  Problem: {
    type: 'object',
    required: ['type', 'title', 'status'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    },
  },
  Pagination: {
    type: 'object',
    properties: {
      total_items: { type: 'integer' },
      page_number: { type: 'integer' },
      page_size: { type: 'integer' },
      total_pages: { type: 'integer' },
    },
  },
};

/**
 * The limits every request meets, checked before any per-item work; the numbers are the ones the validators use
 * (pagination.ts, json-text.ts, applications.dto.ts, token-fields.validate.ts, reactor-formula.validate.ts).
 */
export const REQUEST_LIMITS = [
  'Bodies: JSON objects (arrays too on `/tokenize`, any JSON value on `/detokenize`, there at most 10,000 values) of at most 1 MiB (else 413), nesting arrays and objects at most 64 deep counting the body itself, holding at most 100,000 JSON values and 20,000 object members (else 400 on `body`, which also says where invalid JSON stops parsing, by line, column and character, never with an excerpt).',
  'Lists: application `permissions` ≤ 30, `rules` ≤ 100, each rule\'s `permissions` ≤ 30; token `containers` ≤ 10, `metadata` ≤ 50 entries, `search_indexes` ≤ 20; formula `configuration` ≤ 100, `request_parameters` ≤ 200. A longer list is a 400 naming it, whatever its elements.',
  'Pagination: `page` 1..1,000,000,000 and `size` 1..100, as plain decimal integers (query strings: digits only, so `0x10` and `1e1` are 400s; a parameter given twice or in bracket form, `name[]=`, is a 400 naming it).',
  'Paths: an `{id}` that is not a UUID is a 400 on `id`. Routes that take no body (DELETE, `POST /applications/{id}/regenerate`) accept none or `{}`; any property is a 400 naming it.',
  `Strings: an application \`name\` is 1..${MAX_APPLICATION_NAME_LENGTH} characters (Unicode code points, not UTF-16 units); a rule's \`container\` at most ${MAX_RULE_CONTAINER_LENGTH} characters, its \`description\` at most ${MAX_RULE_DESCRIPTION_LENGTH}; an application's \`rules\`, serialised as JSON, at most ${MAX_APPLICATION_RULES_JSON_LENGTH.toLocaleString('en-US')} characters together, which keeps every page of \`GET /applications\` small.`,
  'Property names: an unknown property is a 400 naming it, whatever its name (`constructor`, `__proto__` and `toString` included), by its first 100 characters. At most 20 unknown properties are named; the rest are counted in one message on `body` (or on the enclosing object\'s path). Error messages name fields and allowed values, never a value that was sent.',
].join('\n\n');

export const commonResponses = {
  BadRequest: {
    description: `Validation failed; \`errors\` names each field.\n\n${REQUEST_LIMITS}`,
    content: problemExample(400, 'One or more validation errors occurred.', { size: ['size must not be greater than 100'] }),
  },
  Unauthorized: { description: 'SVC-API-KEY missing, unknown, revoked or expired', content: problemExample(401, 'Unauthorized') },
  Forbidden: { description: 'The application lacks the permission', content: problemExample(403, 'Forbidden') },
  NotFound: { description: 'No such resource in your tenant', content: problemExample(404, 'Not Found') },
  Conflict: { description: 'Lost a concurrent-write race', content: problemExample(409, 'Conflict') },
  TooLarge: {
    description: 'Body over 1 MiB (after any Content-Encoding is undone), or a change larger than the event store takes in one write',
    content: problemExample(413, 'Payload Too Large'),
  },
  UnsupportedMediaType: { description: 'Body is not application/json (or application/merge-patch+json on PATCH), or not UTF-8', content: problemExample(415, 'Unsupported Media Type') },
  TooManyRequests: {
    description: 'Rate limit per API key exceeded; see Retry-After',
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
    content: problemExample(429, 'Too Many Requests'),
  },
};

/** A malformed UUID in the path, or a body property on a route that takes no body. */
export const badRequest = { '400': { $ref: '#/components/responses/BadRequest' } };

/** The error responses every authenticated endpoint can give. */
export const authErrors = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '429': { $ref: '#/components/responses/TooManyRequests' },
};

export const uuidPath = (name = 'id') => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });

export const pageParameters = [
  { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1_000_000_000, default: 1 }, description: 'Decimal digits only' },
  { name: 'size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, description: 'Decimal digits only' },
];

export const json = (schema: object, example?: unknown) => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
});

/** A problem details body, for an error response described where it is given. */
export const problemContent = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

/** The body errors of POST /tokenize and POST /detokenize, whose bodies may be any JSON value (http/any-json-body.ts). */
export const anyJsonBodyErrors = {
  '400': {
    description: `Validation failed; \`errors\` names every bad path at once (\`[2].data\`, \`card.number.type\`), or \`body\` (more than ${MAX_TOKENIZE_TOKENS} tokens or expressions, a body that is not JSON or, for tokenize, not an object or array). Nothing is created.`,
    content: problemContent,
  },
  '413': { $ref: '#/components/responses/TooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
};
