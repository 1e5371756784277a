// A reactor's `tokenize`, tokenized exactly as POST /tokenize would, on behalf of the caller who invoked the reactor,
// with its errors told as the code's fault, not the caller's, and told without the data when the caller may not see it.
import { DomainError, fieldErrorsOf, validationError, type FieldErrors } from '@vault/domain';
import type { Caller } from '../shared/use-case';
import { idOnlyCap, type OnBehalfOf } from '../tokenize/on-behalf-of';
import type { TokenizeRequests } from '../tokenize/tokenize-requests';

/**
 * `tokenize` wrapped so that every path the tokenizer names starts with `tokenize`. A result that is not a valid
 * tokenize body is the code's fault, not the caller's: 422 (its paths, and errors.reactor). 403 (a container the
 * application may not create in) and 409 (a taken id) pass as they are; nothing is created then. On behalf of the
 * invoking caller: deduplication finds only tokens its token:create rules cover, and when its args used tokens, the
 * tokens are shown by its token:read rule capped at `least`, and a 403 refuses any its rules would show more
 * (OnBehalfOf). When that cap is below reveal, no error names a path under `tokenize` (its keys may come from the data)
 * and an invalid result is one 422 on errors.reactor: which field failed, and why (a card number that is not
 * Luhn-valid), would tell the caller about data it does not see.
 */
export async function tokenizeReaction(tokenizer: TokenizeRequests, caller: Caller, tokenize: unknown, onBehalfOf: OnBehalfOf): Promise<unknown> {
  const capped = idOnlyCap(onBehalfOf.cap);
  try {
    // POST /tokenize takes a token create request, an array or an object, never a bare value: wrapped as
    // `{ tokenize }`, a bare value would pass as a leaf of an object and become a token.
    const primitive = primitiveType(tokenize);
    if (primitive !== null) {
      throw validationError({ tokenize: [`tokenize must be a token create request, an array or an object, not ${primitive}.`] });
    }
    const answer = await tokenizer.tokenize(caller, { tokenize }, onBehalfOf);
    return capped ? answer : (answer as { tokenize: unknown }).tokenize;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (capped) throw pathless(error);
    if (error.kind !== 'validation') throw error;
    const errors: FieldErrors = fieldErrorsOf([
      ['reactor', ['The reactor returned a tokenize that is not a valid tokenize body; the other errors name its paths.']],
      ...Object.entries(error.errors ?? {}),
    ]);
    throw new DomainError('unprocessable', 'The reactor returned a tokenize that is not a valid tokenize body.', errors);
  }
}

/** The JSON type of a `tokenize` that is a bare value (string, number or boolean), or null for arrays and objects. */
const primitiveType = (value: unknown): string | null => {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `a ${typeof value}`;
  return null;
};

/** A tokenizer error without the paths and messages that could echo the data: what the capped case answers. */
const pathless = (error: DomainError): DomainError => {
  switch (error.kind) {
    case 'validation':
      return new DomainError('unprocessable', "The reactor's tokenize result is not valid.", { reactor: ["The reactor's tokenize result is not valid."] });
    case 'forbidden':
      return new DomainError(
        'forbidden',
        "A token of the reactor's tokenize result may not be created where it would go.",
        fieldErrorsOf([['tokenize', [...new Set(Object.values(error.errors ?? {}).flat())]]]),
      );
    case 'conflict':
      return new DomainError('conflict', "The id of a token of the reactor's tokenize result is already taken in this tenant.");
    default:
      return error;
  }
};

