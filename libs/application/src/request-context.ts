// Per-request facts that travel with the async call chain: the request id for logs and whether a write's projection is pending.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  requestId: string;
  projectionPending: boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const runWithRequestContext = <T>(context: RequestContext, fn: () => T): T => storage.run(context, fn);

export const currentRequestContext = (): RequestContext | undefined => storage.getStore();
