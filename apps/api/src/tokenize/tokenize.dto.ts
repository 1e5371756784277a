// What POST /tokenize takes and answers: any JSON shape, read by the domain (tokenize.plan.ts), so only described here.
import { getSchemaPath, type SchemaObject } from '@nestjs/swagger';
import type { TokenView } from '@vault/application';
import { MAX_BODY_DEPTH, MAX_TOKENIZE_TOKENS } from '@vault/domain';
import { CreateTokenBody, TOKEN_EXAMPLE, TokenSchema } from '../tokens/tokens.dto';

export const TOKENIZE_DESCRIPTION = [
  'The body is a token create request (an object with `type` and `data`, as for POST /tokens), an array or an object.',
  `Arrays and other objects are walked (at most ${MAX_BODY_DEPTH} levels deep): each request is created as POST /tokens would create it,`,
  'each string, number or boolean leaf becomes a `token`-type token with that leaf as its data, and `null` stays `null`.',
  `At most ${MAX_TOKENIZE_TOKENS} tokens. Every request is validated, and the caller's token:create rule asked for each, before any token is created;`,
  '`deduplicate_token` works as for POST /tokens (an earlier request of the same body counts as existing).',
  'With the embedded event store the tokens are created in one transaction; with EventStoreDB one after another.',
].join(' ');

export const TOKENIZE_BODY: SchemaObject = {
  anyOf: [{ $ref: getSchemaPath(CreateTokenBody) }, { type: 'array' }, { type: 'object' }],
  description: 'One token request, or an array or object holding requests and leaves',
};

export const TOKENIZE_ANSWER: SchemaObject = {
  anyOf: [{ $ref: getSchemaPath(TokenSchema) }, { type: 'array' }, { type: 'object' }],
  description: "The body's shape, each request or leaf replaced by its token, shown as the caller's token:create rule for it shows it",
};

// Examples: the request body is sent as it stands by test/e2e/openapi.spec.ts.
export const TOKENIZE_EXAMPLE = {
  card: { type: 'card_number', data: '4242424242424242' },
  customer: { name: 'Ada Lovelace', tags: ['vip', null] },
};

const { tenant_id, created_by, created_at } = TOKEN_EXAMPLE;
const leaf = (id: string, data: string, fingerprint: string): TokenView => ({
  id,
  type: 'token',
  tenant_id,
  data,
  fingerprint,
  fingerprint_expression: '{{ data | stringify }}',
  containers: ['/general/high/'],
  metadata: {},
  search_indexes: [],
  created_by,
  created_at,
});

export const TOKENIZED_EXAMPLE = {
  card: {
    ...TOKEN_EXAMPLE,
    id: 'b9bc2fd9-f146-4d01-b59e-82f27fe04829',
    type: 'card_number',
    data: 'XXXXXXXXXXXX4242',
    fingerprint: 'wbDkDDrKZuyuN7HkBjQKetjRNf8YV3b81yMvhmhos8i',
    fingerprint_expression: '{{ data }}',
    containers: ['/pci/high/'],
    metadata: {},
    search_indexes: [],
  } satisfies TokenView,
  customer: {
    name: leaf('29ad5a0d-6cc6-443f-b498-d7b8f7130460', 'Ada Lovelace', 'FjJWQeMdyJ8FUitFNieSgLxX6uB5KTuvzGXWFSf23UKc'),
    tags: [leaf('f90396a3-839f-4a3d-ae47-b54ccffcc18d', 'vip', 'Avpy5czMoEKYyUyUU7N5RCExB8XGHajUYLKC9HXShW89'), null],
  },
};
