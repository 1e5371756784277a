// What every use case is given: a command or query object, dispatched on the CQRS buses to the one handler that does
// the work. Framework-free on purpose: libs/nest registers the handlers with @nestjs/cqrs; tests call them directly.
import type { CommandContext } from '@vault/domain';
import { contextFor, type Principal } from '../authentication/principal';

/** A change, answered with `R`. The phantom `result` (never set) lets the bus's `execute` infer the answer's type. */
export abstract class VaultCommand<R> {
  declare readonly result: R;
  declare readonly kind: 'command';
}

/** A read, answered with `R`. */
export abstract class VaultQuery<R> {
  declare readonly result: R;
  declare readonly kind: 'query';
}

/** The answer to a command or query. */
export type ResultOf<M> = M extends { readonly result: infer R } ? R : never;

/** What a command's or query's handler is: the use case itself. */
export interface UseCaseHandler<M extends VaultCommand<unknown> | VaultQuery<unknown>> {
  execute(message: M): Promise<ResultOf<M>>;
}

/** The authenticated caller of an API request: who (the principal), when (the request's clock) and which request. */
export interface Caller {
  principal: Principal;
  now: Date;
  requestId: string;
}

/** The context the deciders record: the caller's tenant, its application as the actor, the request's clock and id. */
export const contextOf = (caller: Caller): CommandContext => contextFor(caller.principal, caller.now, caller.requestId);
