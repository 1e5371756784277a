// A reactor's args (`token:use`): the body detokenized with the data whatever the rule's transform, since it goes to
// the code, never back to the caller. What comes back is capped by what the caller's token:read rules show.
import type { FlowBackSource, UseInsight } from '@vault/domain';
import type { Caller } from '../shared/use-case';
import type { Detokenizer } from './detokenizer';

export interface UsedBody {
  body: unknown;
  /** The ids of the tokens it used: the reactor records their `use`. */
  used: string[];
  /**
   * The caller's least revealing token:read transform over them (`none` for one no read rule covers; null when it used
   * none): it caps what the reactor's `tokenize` may show the caller.
   */
  least: UseInsight | null;
  /** What the code may hand back that the caller may not see: withheld from the answer. */
  flowBack: FlowBackSource[];
}

/** A filter chain or an expression inside a longer string is a 403 on a token the caller's token:read rule does not reveal. */
export async function detokenizeForUse(detokenizer: Detokenizer, caller: Caller, body: unknown): Promise<UsedBody> {
  const { body: detokenized, views, least, flowBack } = await detokenizer.detokenize(caller, body, 'token:use');
  return { body: detokenized, used: [...views.keys()], least, flowBack };
}
