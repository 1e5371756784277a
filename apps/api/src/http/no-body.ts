// Routes that take no body (DELETE, POST …/regenerate) still read one when it is sent: every property of a request body
// that the route does not know is a 400 naming it, so an empty body or `{}` passes and anything else does not.
import { BadRequestException, Body, PipeTransform } from '@nestjs/common';
import { fieldErrorsOf } from '@vault/domain';
import { problem } from './problem';
import { echoedName, prepareDtoBody } from './raw-body-checks';

/** Declares no property: prepareDtoBody counts (and past 20, refuses) every key of the body as unknown. */
class EmptyBody {}

export class NoBodyPipe implements PipeTransform {
  transform(value: unknown): undefined {
    // body-parsing.ts has answered a body that is not a JSON object already; no body at all reaches here as undefined.
    if (value === undefined || value === null || typeof value !== 'object') return undefined;
    const { errors, body } = prepareDtoBody(value, EmptyBody);
    const named = new Map<string, string[]>(Object.entries(errors ?? {}));
    // The keys left after prepareDtoBody are at most MAX_UNKNOWN_NAMED; prototype names were reported by it already.
    for (const key of Object.keys((body ?? {}) as object)) {
      const name = echoedName(key);
      named.set(name, [`${name} is not a known property`]);
    }
    if (named.size > 0) {
      throw new BadRequestException(problem(400, 'This request takes no body properties.', fieldErrorsOf(named)));
    }
    return undefined;
  }
}

/** `@NoBody() _body: undefined` on a handler that takes no body. */
export const NoBody = (): ParameterDecorator => Body(new NoBodyPipe());
