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
  Permission: {
    type: 'object',
    properties: {
      type: { type: 'string', example: 'token:search' },
      description: { type: 'string', example: 'Search tokens' },
      application_types: { type: 'array', items: { type: 'string' }, example: ['private'] },
    },
  },
};

export const commonResponses = {
  BadRequest: {
    description: 'Validation failed; `errors` names each field',
    content: problemExample(400, 'One or more validation errors occurred.', { size: ['size must not be greater than 100'] }),
  },
  Unauthorized: { description: 'SVC-API-KEY missing, unknown, revoked or expired', content: problemExample(401, 'Unauthorized') },
  Forbidden: { description: 'The application lacks the permission', content: problemExample(403, 'Forbidden') },
  NotFound: { description: 'No such resource in your tenant', content: problemExample(404, 'Not Found') },
  Conflict: { description: 'Lost a concurrent-write race', content: problemExample(409, 'Conflict') },
  TooLarge: { description: 'Body over 1 MiB', content: problemExample(413, 'Payload Too Large') },
  UnsupportedMediaType: { description: 'Body is not application/json', content: problemExample(415, 'Unsupported Media Type') },
  TooManyRequests: {
    description: 'Rate limit per API key exceeded; see Retry-After',
    headers: { 'Retry-After': { schema: { type: 'integer' } } },
    content: problemExample(429, 'Too Many Requests'),
  },
};

/** The error responses every authenticated endpoint can give. */
export const authErrors = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': { $ref: '#/components/responses/Forbidden' },
  '429': { $ref: '#/components/responses/TooManyRequests' },
};

export const uuidPath = (name = 'id') => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });

export const pageParameters = [
  { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
  { name: 'size', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
];

export const json = (schema: object, example?: unknown) => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
});
