// POST /tokenize and its alias POST /tokens/tokenize; the numbers are the domain's.
import { MAX_BODY_DEPTH, MAX_TOKENIZE_TOKENS } from '@vault/domain';
import { anyJsonBodyErrors, authErrors, json, problemContent } from '../http/common.openapi';

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
      ...anyJsonBodyErrors,
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
};
