// What POST /detokenize takes and answers: any JSON value, read by the domain (detokenize.plan.ts), so only described here.
import type { SchemaObject } from '@nestjs/swagger';
import { MAX_DETOKENIZE_EXPRESSIONS, TOKEN_NOT_FOUND_MESSAGE } from '@vault/domain';

export const DETOKENIZE_DESCRIPTION = [
  'The body is any JSON value. Every string that is exactly `{{ <token id> }}` or `{{ token: <token id> }}`, optionally followed by',
  "Liquid filters (`{{ <id> | json: '$.number' | reveal_last: 4 }}`), is replaced by the token's data as the caller's token:read rule",
  'shows it: reveal → the data (any JSON type), mask → the mask; filters apply to that value. An expression inside a longer string is',
  `replaced by its string form. At most ${MAX_DETOKENIZE_EXPRESSIONS} expressions. Each token revealed is an access record in the audit log.`,
].join(' ');

export const ANY_JSON: SchemaObject = { description: 'Any JSON value' };

/** A token the example names; test/e2e/openapi.spec.ts puts a real token's id in its place. */
export const EXAMPLE_CARD_TOKEN = '9e6c9a4e-5e31-4b6f-9a3c-2f1d6f0f7a11';

export const DETOKENIZE_EXAMPLE = {
  card: `{{ ${EXAMPLE_CARD_TOKEN} }}`,
  note: `Card ending {{ ${EXAMPLE_CARD_TOKEN} | json: '$.number' | last4 }}`,
};

export const DETOKENIZED_EXAMPLE = {
  card: { number: '4242424242424242', expiry: '12/29' },
  note: 'Card ending 4242',
};

export const NOT_FOUND_ERRORS = { card: [TOKEN_NOT_FOUND_MESSAGE] };
