// POST /tokenize (and its alias POST /tokens/tokenize) and POST /detokenize; the numbers are the domain's.
import { MAX_BODY_DEPTH, MAX_DETOKENIZE_EXPRESSIONS, MAX_TOKENIZE_TOKENS } from '@vault/domain';
import { authErrors, json } from './common.openapi';

const problemContent = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };

const bodyErrors = {
  '400': {
    description: `Validation failed; \`errors\` names every bad path at once (\`[2].data\`, \`card.number.type\`), or \`body\` (more than ${MAX_TOKENIZE_TOKENS} tokens or expressions, a body that is not JSON or, for tokenize, not an object or array). Nothing is created.`,
    content: problemContent,
  },
  '413': { $ref: '#/components/responses/TooLarge' },
  '415': { $ref: '#/components/responses/UnsupportedMediaType' },
};

const tokenizeExample = {
  card: { type: 'card_number', data: '4242424242424242' },
  customer: { name: 'Ada Lovelace', tags: ['vip', null] },
};

const tokenize = (summary: string) => ({
  post: {
    summary,
    description: [
      'The body is a token create request (an object with `type` and `data`, as for POST /tokens), an array or an object.',
      `Arrays and other objects are walked (at most ${MAX_BODY_DEPTH} levels deep): each request is created as POST /tokens would create it,`,
      'each string, number or boolean leaf becomes a `token`-type token with that leaf as its data, and `null` stays `null`.',
      `At most ${MAX_TOKENIZE_TOKENS} tokens. Every request is validated, and the caller's token:create rule asked for each, before any token is created;`,
      '`deduplicate_token` works as for POST /tokens (an earlier request of the same body counts as existing).',
      'With the embedded event store the tokens are created in one transaction; with EventStoreDB one after another (see the README).',
    ].join(' '),
    requestBody: {
      required: true,
      content: json({ oneOf: [{ $ref: '#/components/schemas/CreateTokenBody' }, { type: 'array' }, { type: 'object' }] }, tokenizeExample),
    },
    responses: {
      '201': {
        description: "The body's shape, each request or leaf replaced by its token, data per the caller's token:create rule for it",
        content: json({ oneOf: [{ $ref: '#/components/schemas/Token' }, { type: 'array' }, { type: 'object' }] }),
      },
      ...bodyErrors,
      ...authErrors,
      '403': {
        description: "The key lacks token:create, or no access rule grants token:create on a token's containers (`errors` names each such path)",
        content: problemContent,
      },
      '409': { description: 'A custom `id` is taken in this tenant (the message names its path), or a lost race with no retry left', content: problemContent },
    },
  },
});

export const tokenizePaths = {
  '/tokenize': tokenize('Tokenize every request and leaf of a JSON body (token:create)'),
  '/tokens/tokenize': tokenize('Same as POST /tokenize (token:create)'),
  '/detokenize': {
    post: {
      summary: 'Replace detokenization expressions in a JSON body by token data (token:read)',
      description: [
        'The body is any JSON value. Every string that is exactly `{{ <token id> }}` or `{{ token: <token id> }}`, optionally followed by',
        "Liquid filters (`{{ <id> | json: '$.number' | reveal_last: 4 }}`), is replaced by the token's data as the caller's token:read rule",
        'shows it: reveal → the data (any JSON type), mask → the mask; filters apply to that value. An expression inside a longer string is',
        `replaced by its string form. At most ${MAX_DETOKENIZE_EXPRESSIONS} expressions.`,
      ].join(' '),
      requestBody: {
        required: true,
        content: json({}, { card: '{{ 9e6c9a4e-5e31-4b6f-9a3c-2f1d6f0f7a11 }}', last4: "Card ending {{ 9e6c9a4e-5e31-4b6f-9a3c-2f1d6f0f7a11 | json: '$.number' | last4 }}" }),
      },
      responses: {
        '200': { description: 'The body with every expression replaced', content: json({}) },
        ...bodyErrors,
        ...authErrors,
        '400': {
          description:
            'An expression that does not parse or whose filters fail, or a token that does not exist or that no rule covers (the same message for both), named by path; or `body` beyond the limits',
          content: problemContent,
        },
        '403': { description: "The key lacks token:read, or the caller's rule for a token redacts it (or masks a token without a mask): the message names the path", content: problemContent },
      },
    },
  },
};
