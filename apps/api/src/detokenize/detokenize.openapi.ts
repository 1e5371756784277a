// POST /detokenize; the numbers are the domain's.
import { MAX_DETOKENIZE_EXPRESSIONS } from '@vault/domain';
import { anyJsonBodyErrors, authErrors, json, problemContent } from '../http/common.openapi';

export const detokenizePaths = {
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
        ...anyJsonBodyErrors,
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
