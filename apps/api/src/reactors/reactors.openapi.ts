// The reactor endpoints: CRUD and the invocation, POST /reactors/{id}/react.
import { MAX_CONFIGURATION_VALUE_LENGTH, MAX_REACTOR_NAME_LENGTH } from '@vault/domain';
import { authErrors, json, pageParameters, uuidPath } from '../http/common.openapi';

const ref = { $ref: '#/components/schemas/Reactor' };
const idObject = { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } };
const configuration = {
  type: 'object',
  maxProperties: 100,
  additionalProperties: { type: ['string', 'boolean', 'number'] },
  description:
    `Setting name → value: every setting the formula declares, each of its declared type, and nothing else (else 400 naming \`configuration.<name>\`). ` +
    `Strings at most ${MAX_CONFIGURATION_VALUE_LENGTH.toLocaleString('en')} characters. Values are secrets: stored sealed under the reactor's own key, ` +
    'returned only to reactor:read holders (a create, PUT or PATCH answers a caller without reactor:read with no `configuration`), destroyed with the reactor; error messages name settings, never values.',
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
      configuration: {
        type: 'object',
        additionalProperties: { type: ['string', 'boolean', 'number'] },
        description: 'Absent when the caller lacks reactor:read (the answer to its create, PUT or PATCH)',
      },
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
  '/reactors/{id}/react': {
    parameters: [uuidPath()],
    post: {
      summary: "Invoke a reactor: run its formula's current code on args (token:use)",
      description:
        "1. `args` is detokenized: every `{{ <token id> }}` is replaced by the token's data (filters, or an expression inside a longer string, only on tokens the caller's token:read rule reveals: else 403 naming `args.<path>`); " +
        'the caller needs a rule granting token:use on each token, whatever its transform (the data goes to the code, never back to the caller). ' +
        'A token that does not exist or that no rule covers: 400 naming `args.<path>`, the same message for both. ' +
        "2. The detokenized args are checked against the formula's request_parameters (400 naming `args.<path>`; the message gives the declared type, never the value; a null is of no type, an optional parameter may only be left out). " +
        '3. The code runs in a fresh isolated V8 context with `{ args, configuration }`, under VAULT_REACTOR_TIMEOUT_MS, VAULT_REACTOR_MEMORY_MB and ' +
        'VAULT_REACTOR_CONCURRENCY, `fetch` reaching only VAULT_REACTOR_ALLOWED_HOSTS. ' +
        "4. `raw` (an object, as SPEC types it) is returned as is; `tokenize` is tokenized exactly as POST /tokenize, as the reactor's application when it has one (else the caller), and returned as `tokens` (null when the code returned none), each token shown by the caller's own token:read rule, at most as the caller's rules show the tokens args used. " +
        'When the caller does not reveal every token args used, `tokens` is an array of id-only views in document order (no data, mask, fingerprint or search indexes), those tokens get no search indexes, errors name only `tokenize`, and an invalid result is one 422 on `errors.reactor`. ' +
        '5. Code that throws, times out, runs out of memory, returns something other than nothing or a plain object of JSON values, or a `raw` that is not an object: 422 with `errors.reactor` (the thrown message, at most 500 characters, with every token value, configuration value and 8+ character run of one taken out). ' +
        'Args, configuration, raw and the code\'s errors are never logged.',
      requestBody: {
        required: false,
        content: json(
          {
            type: 'object',
            additionalProperties: false,
            properties: { args: { description: 'Any JSON; detokenization expressions anywhere in its strings' } },
          },
          { args: { email: '{{ 0b6f3c9e-2a41-4f8e-9d57-3c1e8a2b7f10 }}' } },
        ),
      },
      responses: {
        ...authErrors,
        '200': {
          description: 'The code ran',
          content: json({
            type: 'object',
            required: ['tokens', 'raw'],
            properties: {
              tokens: {
                description:
                  "The code's `tokenize` with each token request or leaf replaced by its token, as POST /tokenize answers; an array of id-only views when the caller does not reveal every token args used; null without one",
              },
              raw: { type: ['object', 'null'], description: "The code's `raw`, a JSON object of at most 1 MiB; null without one" },
            },
          }),
        },
        '400': { $ref: '#/components/responses/BadRequest' },
        '403': {
          description: "The caller lacks token:use; or the reactor's application (else the caller) has no token:create rule on the containers of a token its tokenize asks for (errors name each `tokenize.<path>`; no token is created)",
          content: json({ $ref: '#/components/schemas/Problem' }),
        },
        '404': { $ref: '#/components/responses/NotFound' },
        '409': {
          description: "The reactor's formula was deleted while the reactor was being created; or a token id its tokenize asks for is taken",
          content: json({ $ref: '#/components/schemas/Problem' }),
        },
        '413': { $ref: '#/components/responses/TooLarge' },
        '415': { $ref: '#/components/responses/UnsupportedMediaType' },
        '422': {
          description:
            'The code threw, timed out, ran out of memory, did not load or returned something that is not a plain object of JSON values, or a raw that is not an object (`errors.reactor`: the thrown message, at most 500 characters); ' +
            "its tokenize is not a valid tokenize body (`errors.reactor` and `errors['tokenize.<path>']`, or `errors.tokenize` for a bare string, number or boolean); or the reactor's application was deleted or has expired (`errors['reactor.application']`)",
          content: json({ $ref: '#/components/schemas/Problem' }),
        },
        '503': {
          description: 'Too many invocations are running and waiting; retry after the `Retry-After` header (seconds)',
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
          content: json({ $ref: '#/components/schemas/Problem' }),
        },
      },
    },
  },
};
