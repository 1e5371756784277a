// Routes that take no body (DELETE, POST …/regenerate) still read one when it is sent: every property of a request body
// that the route does not know is a 400 naming it, so an empty body or `{}` passes and anything else does not.
import { BadRequestException, Body, PipeTransform } from '@nestjs/common';
import { fieldErrorsOf } from '@vault/domain';
import { ApiProblem, problem } from './problem';
import { echoedName, prepareDtoBody } from './raw-body-checks';

const NO_BODY_PROPERTIES = 'This request takes no body properties.';

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
      throw new BadRequestException(problem(400, NO_BODY_PROPERTIES, fieldErrorsOf(named)));
    }
    return undefined;
  }
}

/** `@NoBody() _body: undefined` on a handler that takes no body; the OpenAPI document gets its 400. */
export const NoBody =
  (): ParameterDecorator =>
  (target, key, index): void => {
    Body(new NoBodyPipe())(target, key, index);
    if (key === undefined) return;
    ApiProblem(400, 'The request has a body with properties: this route takes none (`{}` or no body).', NO_BODY_PROPERTIES, {
      force: ['force is not a known property'],
    })(target, key, Object.getOwnPropertyDescriptor(target, key)!);
  };
